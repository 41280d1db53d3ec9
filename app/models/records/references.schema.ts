/**
 * External references' input (issue 42, docs/decisions/057-record-links-and-references.md): the
 * admin's forms on /admin/references, and a reference added to a record (POST /api/references and
 * the record pages' form). Shared by the API and the pages' servers.
 */
import { z } from "zod";
import {
  REFERENCE_MAX,
  REFERENCE_PLACEHOLDER,
  REFERENCE_TEMPLATE_MAX,
  REFERENCE_TYPE_NAME_MAX,
  REFERENCE_TYPES_RECORD,
} from "./references.constants";
import { bidiControlMessage, hasBidiControl, hasControlCharacter } from "../shared/text-rules";

export { REFERENCE_TYPES_RECORD };

const CONTROL_MESSAGE = (what: string) => `${what} must not contain line breaks, tabs or other control characters`;

export const referenceTypeNameSchema = z
  .string({ error: "Enter the type's name" })
  .trim()
  .min(1, { error: "Enter the type's name" })
  .max(REFERENCE_TYPE_NAME_MAX, { error: `A type's name is at most ${REFERENCE_TYPE_NAME_MAX} characters` })
  .refine((name) => !/[\p{Cc}\u2028\u2029]/u.test(name), { error: CONTROL_MESSAGE("A type's name") })
  .refine((name) => !hasBidiControl(name), { error: bidiControlMessage("A type's name") });

/**
 * A URL template: empty (no link) or an http(s) address containing `{ref}`. Returns null for empty.
 */
export const urlTemplateSchema = z
  .string({ error: "The URL template must be text" })
  .trim()
  .max(REFERENCE_TEMPLATE_MAX, { error: `A URL template is at most ${REFERENCE_TEMPLATE_MAX} characters` })
  .refine((t) => t === "" || /^https?:\/\/[^\s/]/i.test(t), {
    error: "A URL template must start with https:// or http:// and name a host",
  })
  .refine((t) => t === "" || t.includes(REFERENCE_PLACEHOLDER), {
    error: `A URL template must contain ${REFERENCE_PLACEHOLDER}, where the reference's number goes`,
  })
  .refine((t) => !/[\s\p{Cc}]/u.test(t), { error: "A URL template must not contain spaces or control characters" })
  .transform((t) => (t === "" ? null : t));

/** A reference's number: trimmed, 1 to REFERENCE_MAX characters, no control or direction characters. */
export const referenceNumberSchema = z
  .string({ error: "Enter the reference's number" })
  .trim()
  .min(1, { error: "Enter the reference's number" })
  .max(REFERENCE_MAX, { error: `A reference is at most ${REFERENCE_MAX} characters` })
  .refine((ref) => !hasControlCharacter(ref) && !/[\u2028\u2029]/.test(ref), { error: CONTROL_MESSAGE("A reference") })
  .refine((ref) => !hasBidiControl(ref), { error: bidiControlMessage("A reference") });

const typeId = z.string({ error: "Which type?" }).min(1, { error: "Which type?" });

export const referenceTypeActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("add"),
    name: referenceTypeNameSchema,
    template: urlTemplateSchema.optional(),
  }),
  z.object({ intent: z.literal("rename"), type: typeId, name: referenceTypeNameSchema }),
  z.object({ intent: z.literal("template"), type: typeId, template: urlTemplateSchema }),
  z.object({ intent: z.enum(["up", "down", "deactivate", "activate"]), type: typeId }),
]);
export type ReferenceTypeAction = z.input<typeof referenceTypeActionSchema>;

/** POST /api/references: the record, the type (its id or its name) and the number. */
export const addReferenceSchema = z.object({
  record: z.string({ error: 'Name the record as "<kind>:<id>"' }),
  type: z.string({ error: "Choose the reference's type (its id or name)" }).trim().min(1, {
    error: "Choose the reference's type (its id or name)",
  }),
  ref: referenceNumberSchema,
});
export type AddReference = z.infer<typeof addReferenceSchema>;

/** GET /api/references?record=<kind>:<id>. */
export const referencesQuerySchema = z.object({
  record: z.string({ error: "Name the record: ?record=<kind>:<id>" }),
});

/** DELETE /api/references?id=<the reference's id>. */
export const removeReferenceQuerySchema = z.object({
  id: z.string({ error: "Name the reference to remove: ?id=<the reference's id>" }),
});

// ---------------------------------------------------------------------------------------------
// Answers (the OpenAPI description, app/web/openapi/references.ts)

/** One reference type, as GET /api/referenceTypes answers it. */
export const referenceTypeAnswer = z.object({
  id: z.uuid(),
  name: z.string(),
  urlTemplate: z.string().nullable().meta({ description: "An http(s) address containing {ref}; null: no link." }),
  sort: z.number().int(),
  active: z.boolean().meta({ description: "Offered for new references; a deactivated type stays on those it has." }),
});

/** One live reference of a record. */
export const referenceAnswer = z.object({
  id: z.uuid(),
  record: z.string().meta({ description: 'The record: "<kind>:<id>".' }),
  typeId: z.uuid(),
  typeName: z.string(),
  ref: z.string(),
  url: z
    .string()
    .nullable()
    .meta({ description: "The type's URL template with the number URL-encoded into it; null when the type has none." }),
  addedBy: z.object({ _id: z.uuid(), name: z.string() }).nullable(),
  addedAt: z.iso.datetime(),
});

export const referencesAnswer = z.object({ references: z.array(referenceAnswer) });
