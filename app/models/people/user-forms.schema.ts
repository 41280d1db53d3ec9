/**
 * The account forms' schemas (onboarding, profile, the admin's user forms), in a module of their
 * own: the actions validate with them on the server, and the pages' browser validation loads them
 * when a form is first used (app/components/lazy-validation.ts), so the pages do not ship zod with
 * their first load (docs/decisions/032-pages-at-sea.md).
 */
import { z } from "zod";
import { emailSchema, nameSchema, newUserSchema, passwordSchema, POSITIONS } from "./user.schema";

/** First sign-in: choose a password, twice. */
export const onboardingSchema = z
  .object({ password: passwordSchema, confirm: z.string({ error: "Repeat the password" }) })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "The two passwords do not match" });

/**
 * Profile: name and email. The name is sent by admins only (only they change a display name); the
 * current password is needed when the email changes (checked by the server, which knows the email
 * on record).
 */
export const profileDetailsSchema = z.object({
  intent: z.literal("details"),
  name: nameSchema.optional(),
  email: emailSchema,
  currentPassword: z.string().optional(),
});
/** Profile: a new password, with the current one. */
export const profilePasswordSchema = z
  .object({
    intent: z.literal("password"),
    currentPassword: z.string({ error: "Enter your current password" }),
    password: passwordSchema,
    confirm: z.string({ error: "Repeat the new password" }),
  })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "The two passwords do not match" });
export const profileSchema = z.discriminatedUnion("intent", [profileDetailsSchema, profilePasswordSchema]);

/** The rank select: empty means "no rank" (the model checks the name against the list). */
const rankField = z
  .string()
  .trim()
  .max(60)
  .optional()
  .transform((v) => v || null);

/** The admin's create form: an empty position select means "no position". */
export const userFormSchema = newUserSchema.extend({
  position: z
    .enum(POSITIONS)
    .optional()
    .transform((v) => v ?? null),
  rank: rankField,
});

/** The admin's edit form: the password only when it changes. */
export const userEditSchema = newUserSchema.extend({
  password: newUserSchema.shape.password.optional(),
  position: z
    .enum(POSITIONS)
    .optional()
    .transform((v) => v ?? null),
  rank: rankField,
  active: z.boolean().default(false),
});
