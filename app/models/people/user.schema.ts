/** User input schemas, shared by the /api routes, the pages' servers and their browser-side validation. */
import { z } from "zod";
import { ACCESS_LEVELS, DEPARTMENTS, POSITIONS, ROLES } from "#db/schema/enums";
import { Forbidden } from "~/utils/errors";
import { partialUpdate } from "../shared/partial-update";
import { bidiControlMessage, hasBidiControl } from "../shared/text-rules";

export { ACCESS_LEVELS, DEPARTMENTS, POSITIONS, ROLES };

export const emailSchema = z
  .string({ error: "Email is required" })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "Enter a valid email address" }).max(254));
export const passwordSchema = z
  .string({ error: "Password is required" })
  .min(8, { error: "Password must be at least 8 characters" })
  .max(256, { error: "Password must be at most 256 characters" });
export const nameSchema = z
  .string({ error: "Name is required" })
  .trim()
  .min(1, { error: "Name is required" })
  .max(120, { error: "Name must be at most 120 characters" })
  // Names go into email subjects and other single-line places: no line breaks or other controls.
  .refine((name) => !/[\p{Cc}\u2028\u2029]/u.test(name), {
    error: "Name must not contain line breaks, tabs or other control characters",
  })
  .refine((name) => !hasBidiControl(name), { error: bidiControlMessage("Name") });
const positionSchema = z.enum(POSITIONS, { error: `Position must be one of: ${POSITIONS.join(", ")}` }).nullable();
/** A rank on board (issue 41): a name from the admins' list (checked against it by the model), or null. */
export const rankSchema = z
  .string({ error: "Rank must be a rank's name or null" })
  .trim()
  .min(1, { error: "Rank must be a rank's name or null" })
  .max(60, { error: "Rank must be at most 60 characters" })
  .nullable();

export const newUserSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
  role: z.enum(ROLES, { error: "Role must be admin or user" }).default("user"),
  department: z.enum(DEPARTMENTS, { error: `Department must be one of: ${DEPARTMENTS.join(", ")}` }),
  access: z.enum(ACCESS_LEVELS, { error: "Access must be full or standard" }).default("standard"),
  position: positionSchema.optional().default(null),
  rank: rankSchema.optional().default(null),
});
export type NewUserInput = z.input<typeof newUserSchema>;

/** PUT /api/users: `_id` and the fields to change; a field left out keeps its value (no defaults). */
export const userUpdateSchema = partialUpdate(newUserSchema)
  .extend({
    _id: z.uuid({ error: "_id must be a user id" }),
    active: z.boolean({ error: "active must be true or false" }).optional(),
    position: positionSchema.optional(),
    rank: rankSchema.optional(),
  })
  .strict();
export type UserUpdateInput = z.input<typeof userUpdateSchema>;

const ADMIN_ONLY_FIELDS = ["role", "department", "access", "position", "rank", "active", "onboarded"] as const;

export const ownProfileSchema = z
  .object({
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    password: passwordSchema.optional(),
    currentPassword: z.string().optional(),
  })
  // Unknown keys (including _id) are ignored rather than applied; admin-only keys are refused
  // before parsing, by `assertNoAdminOnlyFields`.
  .strip();
export type OwnProfileInput = z.input<typeof ownProfileSchema>;

export function assertNoAdminOnlyFields(body: unknown): void {
  if (body && typeof body === "object") {
    const present = ADMIN_ONLY_FIELDS.filter((field) => field in body);
    if (present.length > 0) throw new Forbidden(`Only an admin can change ${present.join(", ")}`);
  }
}

export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: "Password is required" }).min(1, { error: "Password is required" }),
  redirectTo: z.string().optional(),
});

/** The sign-in link page's forms: ask for a link by email, or use the link's token. */
export const signInLinkSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("send"), email: emailSchema }),
  z.object({ intent: z.literal("redeem"), token: z.string({ error: "The link is incomplete" }).max(100) }),
]);

/** GET /api/verify: an email and password checked without opening a session. */
export const verifyQuery = z.object({
  email: emailSchema,
  password: z.string({ error: "password is required" }).min(1, { error: "password is required" }),
});

/** DELETE /api/users: the user to delete. */
export const userIdBody = z.object({ _id: z.uuid({ error: "_id must be a user id" }) });
