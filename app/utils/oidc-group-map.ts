/**
 * OIDC_GROUP_MAP: JSON from a group name (as the identity provider's groups claim names it) to the
 * account fields membership sets, e.g. `{"moc-admins":{"role":"admin"},"hseq-team":{"department":"hseq"}}`.
 * Groups apply in the map's order, a later one overriding an earlier one's field
 * (docs/decisions/029-oidc-and-notifications.md). `rank` (a rank on board, issue 41) names a rank
 * of the admins' list; it is checked against the list at sign-in, not at boot.
 */
import { z } from "zod";
import { ACCESS_LEVELS, DEPARTMENTS, POSITIONS, ROLES } from "#db/schema/enums";

const fieldsSchema = z
  .object({
    role: z.enum(ROLES).optional(),
    department: z.enum(DEPARTMENTS).optional(),
    access: z.enum(ACCESS_LEVELS).optional(),
    position: z.enum(POSITIONS).nullable().optional(),
    rank: z.string().trim().min(1).max(60).nullable().optional(),
  })
  .strict();

export const groupMapSchema = z.record(z.string().min(1), fieldsSchema);
export type GroupMap = z.infer<typeof groupMapSchema>;
export type MappedFields = z.infer<typeof fieldsSchema>;

/** Parses the variable; an absent one is an empty map. Throws on a bad one (checked at boot). */
export function parseGroupMap(raw: string | undefined): GroupMap {
  if (!raw) return {};
  return groupMapSchema.parse(JSON.parse(raw));
}

/** Why the variable is not a usable map, or null. */
export function groupMapProblem(raw: string | undefined): string | null {
  try {
    parseGroupMap(raw);
    return null;
  } catch (error) {
    if (error instanceof z.ZodError) {
      const issue = error.issues[0];
      return `OIDC_GROUP_MAP: ${issue?.path.join(".") || "value"}: ${issue?.message ?? "invalid"}`;
    }
    return "OIDC_GROUP_MAP is not valid JSON";
  }
}
