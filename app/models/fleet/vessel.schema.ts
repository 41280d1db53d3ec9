/**
 * Vessels and crew assignments (docs/decisions/036-vessels-and-crew-access.md): the bodies of
 * /api/vessels and /api/vessels/assignments, shared by the admin page. No I/O.
 */
import { z } from "zod";
import { withoutBidiControls } from "../shared/text-rules";

/**
 * An IMO ship identification number's check: seven digits, the last being the last digit of the
 * sum of the first six multiplied by 7, 6, 5, 4, 3 and 2 (9074729: 9x7 + 0x6 + 7x5 + 4x4 + 7x3 + 2x2 = 139).
 */
export function imoCheckDigitValid(imo: string): boolean {
  if (!/^[0-9]{7}$/.test(imo)) return false;
  const sum = [...imo.slice(0, 6)].reduce((n, digit, i) => n + Number(digit) * (7 - i), 0);
  return sum % 10 === Number(imo[6]);
}

/** "IMO 9074729", "9074729" or "imo9074729": the seven digits. */
export const imoNumber = z
  .string({ error: "IMO number is required" })
  .trim()
  .transform((v) => v.replace(/^imo\s*/i, ""))
  .refine((v) => /^[0-9]{7}$/.test(v), { error: "IMO number must be 7 digits", abort: true })
  .refine(imoCheckDigitValid, { error: "IMO number's check digit does not match (the 7th digit)" })
  .meta({ example: "9074729", description: 'Seven digits with the check digit last; "IMO 9074729" is taken too.' });

const line = (what: string, min: number, max: number) =>
  withoutBidiControls(
    z
      .string({ error: `${what} is required` })
      .trim()
      .min(min, { error: min > 0 ? `${what} is required` : `${what} is too short` })
      .max(max, { error: `${what} must be at most ${max} characters` })
      // eslint-disable-next-line no-control-regex
      .refine((v) => !/[\u0000-\u001f\u007f-\u009f]/.test(v), { error: `${what} must be one line of plain text` }),
    what,
  );

export const vesselFields = {
  name: line("Name", 1, 120),
  imo: imoNumber,
  ship_type: line("Ship type", 0, 80).optional(),
  flag: line("Flag", 0, 80).optional(),
  active: z.boolean({ error: "active must be true or false" }).optional(),
};

/** POST /api/vessels. */
export const vesselBodySchema = z.object(vesselFields);
/** PUT /api/vessels?id=: what it names changes, nothing else. */
export const vesselUpdateSchema = z
  .object(vesselFields)
  .partial()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { error: "Name at least one field to change" });
export type VesselInput = z.infer<typeof vesselBodySchema>;

export const vesselIdQuery = z.object({ id: z.uuid({ error: "Expected a vessel id" }) });
export const optionalVesselIdQuery = vesselIdQuery.partial();

const day = z.iso.date({ error: "Expected a date (YYYY-MM-DD)" });

/** POST /api/vessels/assignments: a person on a vessel from a day, to a day or open-ended. */
export const assignmentBodySchema = z
  .object({
    vessel_id: z.uuid({ error: "Expected a vessel id" }),
    user_id: z.uuid({ error: "Expected a user id" }),
    from: day,
    to: day.nullable().optional(),
  })
  .refine((a) => !a.to || a.to >= a.from, { path: ["to"], error: "The end cannot be before the start" });
export type AssignmentInput = z.infer<typeof assignmentBodySchema>;

/** GET /api/vessels/assignments: one vessel's, or one person's, or (admins) everyone's. */
export const assignmentQuerySchema = z.object({
  vessel_id: z.uuid({ error: "Expected a vessel id" }).optional(),
  user_id: z.uuid({ error: "Expected a user id" }).optional(),
});
export const assignmentIdQuery = z.object({ id: z.uuid({ error: "Expected an assignment id" }) });

export { isScope, SCOPES, SCOPE_LABELS, type Scope } from "./vessel.constants";
