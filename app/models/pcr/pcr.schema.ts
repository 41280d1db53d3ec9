/** PCR input schemas (docs/api-contract.md, "PCR"; docs/decisions/005-pcr-signatures.md), shared by /api and the pages. */
import { z } from "zod";
import { PCR_ROLES } from "#db/schema/enums";
import { mocTitle } from "../moc/moc.schema";
import { MAX_HTML, MAX_TEXT, uuid } from "../shared/fields.schema";
import { partialUpdate } from "../shared/partial-update";

export const MAX_SIGNATURE_BYTES = 200 * 1024;

const html = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `Fill in ${what}` : `${what} must be text`) })
    .max(MAX_HTML, { error: `${what} is too long` });

export const pcrFormSchema = z.object({
  originator: uuid("user id").optional(),
  /** The PCR's title, as a MOC's (docs/decisions/036-vessels-and-crew-access.md): optional over /api, required on the page. */
  title: mocTitle.optional(),
  "new-suggestion": z.boolean({ error: "new-suggestion must be true or false" }).default(false),
  "procedure-change": z.boolean({ error: "procedure-change must be true or false" }).default(false),
  "safety-critical": z.boolean({ error: "safety-critical must be true or false" }).default(false),
  "manual-procedure": html("manual-procedure").default(""),
  "suggestion-details": html("suggestion-details"),
  "reason-for-change": html("reason-for-change"),
});
export type PcrFormInput = z.infer<typeof pcrFormSchema>;

/** Decoded size of a base64 string, without decoding it (works in the browser too). */
const base64Bytes = (b64: string) =>
  Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);

/**
 * A signature: a drawn PNG as a data URL (at most 200 KB) or the signer's typed full name.
 * `false` means unsigned and `null` a comment without a signature.
 */
export const signatureValue = z.union([
  z.literal(false),
  z.null(),
  z
    .string()
    .max(MAX_SIGNATURE_BYTES * 1.4, { error: "A drawn signature can be at most 200 KB" })
    .refine((s) => (s.startsWith("data:") ? /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/.test(s) : true), {
      error: "A drawn signature must be a PNG data URL",
    })
    .refine((s) => !s.startsWith("data:") || base64Bytes(s.split(",")[1] ?? "") <= MAX_SIGNATURE_BYTES, {
      error: "A drawn signature can be at most 200 KB",
    })
    .refine((s) => s.startsWith("data:") || (s.trim().length >= 2 && s.trim().length <= 120), {
      error: "A typed signature is your full name (2 to 120 characters)",
    }),
]);

const comments = z.string({ error: "Comments must be text" }).max(MAX_TEXT).optional().default("");

export const signatureSlotSchema = z.object({
  Name: z.enum(PCR_ROLES, { error: `Name must be one of: ${PCR_ROLES.join(", ")}` }),
  Signature: signatureValue.optional().default(false),
  signatureDate: z.string().nullable().optional(),
  Comments: comments,
});

export const affectedPartySchema = z.object({
  Name: z.object({ value: uuid("user id") }),
  Signature: signatureValue.optional().default(false),
  Comments: comments,
});

export const newPcrSchema = z.object({
  form: pcrFormSchema,
  affectedParties: z.array(affectedPartySchema).max(50).optional().default([]),
  signatures: z.array(signatureSlotSchema).optional(),
});

/** PUT /api/pcr: the fields of `form` it names are merged into the stored form (none take defaults). */
export const updatePcrSchema = z
  .object({
    form: partialUpdate(pcrFormSchema).optional(),
    affectedParties: z.array(affectedPartySchema).max(50).optional(),
  })
  .passthrough();

export const signaturesBodySchema = z.object({
  pcrId: uuid("PCR id"),
  signatures: z.array(signatureSlotSchema).length(PCR_ROLES.length, { error: "Send all six signature slots" }),
  /** The signer's password, when the body signs a slot (re-authentication, as on the page). */
  password: z.string({ error: "password must be a string" }).max(256).optional(),
});

/** Why a PCR is withdrawn: required, one short paragraph. */
export const withdrawReasonSchema = z
  .string({ error: "Say why the PCR is withdrawn" })
  .trim()
  .min(1, { error: "Say why the PCR is withdrawn" })
  .max(2000, { error: "At most 2000 characters" });

/** POST /api/pcr/substitute: who signs a position slot of a PCR raised by a holder of that position. */
export const substituteBodySchema = z.object({
  pcrId: uuid("PCR id"),
  role: z.enum(PCR_ROLES, { error: `role must be one of: ${PCR_ROLES.join(", ")}` }),
  userId: uuid("user id"),
});

/** POST /api/pcr/withdraw. */
export const withdrawBodySchema = z.object({ pcrId: uuid("PCR id"), reason: withdrawReasonSchema });

export const affectedPartiesBodySchema = z.object({
  pcrId: uuid("PCR id"),
  affectedParties: z.array(affectedPartySchema).max(50),
});

export const clonePcrSchema = z.object({
  old_pcr: z
    .object({ serial_num: z.string().regex(/^\d+-\d{4}$/, { error: "serial_num must look like 12-2026" }) })
    .passthrough(),
});

// ---------------------------------------------------------------------------------------------
// Pages

const requiredHtml = (what: string) =>
  html(what).refine((v) => v.replace(/<[^>]*>/g, "").trim().length > 0, { error: `${what} is required` });

/** New and edited PCRs as the pages post them (checkboxes for the flags and the affected parties). */
export const pcrPageSchema = z.object({
  title: mocTitle,
  "new-suggestion": z.boolean().default(false),
  "procedure-change": z.boolean().default(false),
  "safety-critical": z.boolean().default(false),
  "manual-procedure": html("Manual / procedure").default(""),
  "suggestion-details": requiredHtml("Suggestion details"),
  "reason-for-change": requiredHtml("Reason for change"),
  parties: z.array(uuid("user id")).max(50).default([]),
});
export type PcrPage = z.infer<typeof pcrPageSchema>;

/** Signing or commenting on the PCR page: the signer re-enters their password to sign. */
/**
 * The PCR page's sign-or-comment form. `passwordRequired` is false for a signer who re-authenticates
 * at the identity provider instead (PASSWORD_SIGN_IN=off, app/web/reauth.server.ts).
 */
export const signPageSchemaWith = ({ passwordRequired }: { passwordRequired: boolean }) =>
  z
    .object({
      intent: z.enum(["sign", "comment"]),
      slot: z.string().max(40),
      signature: z
        .string()
        .max(MAX_SIGNATURE_BYTES * 1.4)
        .optional(),
      password: z.string().max(256).optional(),
      comments: z.string().trim().max(MAX_TEXT).optional().default(""),
    })
    .superRefine((form, ctx) => {
      if (form.intent === "sign") {
        if (!form.signature?.trim()) {
          ctx.addIssue({
            code: "custom",
            path: ["signature"],
            message: "Sign: draw your signature or type your full name",
          });
        } else {
          const check = signatureValue.safeParse(form.signature);
          if (!check.success)
            ctx.addIssue({ code: "custom", path: ["signature"], message: check.error.issues[0]!.message });
        }
        if (passwordRequired && !form.password)
          ctx.addIssue({ code: "custom", path: ["password"], message: "Enter your password to sign" });
      } else if (!form.comments) {
        ctx.addIssue({ code: "custom", path: ["comments"], message: "Write your comment" });
      }
    });

export const signPageSchema = signPageSchemaWith({ passwordRequired: true });

/** The page form as the API body (`form` and `affectedParties`). */
export const toPcrInput = (value: PcrPage) => ({
  form: {
    title: value.title,
    "new-suggestion": value["new-suggestion"],
    "procedure-change": value["procedure-change"],
    "safety-critical": value["safety-critical"],
    "manual-procedure": value["manual-procedure"],
    "suggestion-details": value["suggestion-details"],
    "reason-for-change": value["reason-for-change"],
  },
  affectedParties: value.parties.map((id) => ({ Name: { value: id }, Signature: false as const, Comments: "" })),
});
