/**
 * The risk matrix settings' input (docs/decisions/037-risk-ranking-and-approvals.md): the admin
 * page's form, validated on the server and in the browser alike.
 */
import { z } from "zod";
import { POSITIONS } from "#db/schema/enums";

const score = (what: string) =>
  z.coerce
    .number({ error: `${what} must be a whole number` })
    .int({ error: `${what} must be a whole number` })
    .min(1, { error: `${what} must be between 1 and 24` })
    .max(24, { error: `${what} must be between 1 and 24` });
const position = (what: string) => z.enum(POSITIONS, { error: `${what} must be one of: ${POSITIONS.join(", ")}` });

/** What `setRiskSettings` changes: every field, or some of them. */
export const riskSettingsSchema = z
  .object({
    lowMax: score("The highest Low score"),
    mediumMax: score("The highest Medium score"),
    highMax: score("The highest High score"),
    highPosition: position("The position approving High risk"),
    extremePosition: position("The position approving Extreme risk"),
    rankingRequired: z.boolean({ error: "rankingRequired must be true or false" }),
  })
  .partial();
export type RiskSettingsInput = z.output<typeof riskSettingsSchema>;

/** PUT /api/riskSettings: what the body names changes (docs/decisions/053: every PUT merges). */
export const riskSettingsBodySchema = riskSettingsSchema.strict();

/** The admin page's form: every field, the gate as a checkbox (absent: off). */
export const riskSettingsFormSchema = riskSettingsSchema.required().extend({
  rankingRequired: z.boolean().default(false),
});
