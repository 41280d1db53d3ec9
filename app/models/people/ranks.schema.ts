/**
 * The admin's forms on /admin/ranks (issue 41): add a rank, rename one, move it up or down the
 * list, deactivate or reactivate it. Shared by the page's server and its browser validation.
 */
import { z } from "zod";
import { bidiControlMessage, hasBidiControl } from "../shared/text-rules";

import { RANKS_RECORD } from "./ranks.constants";

export { RANKS_RECORD };

export const rankNameSchema = z
  .string({ error: "Enter the rank's name" })
  .trim()
  .min(1, { error: "Enter the rank's name" })
  .max(60, { error: "A rank's name is at most 60 characters" })
  .refine((name) => !/[\p{Cc}\u2028\u2029]/u.test(name), {
    error: "A rank's name must not contain line breaks, tabs or other control characters",
  })
  .refine((name) => !hasBidiControl(name), { error: bidiControlMessage("A rank's name") });

export const addRankSchema = z.object({ intent: z.literal("add"), name: rankNameSchema });
export const renameRankSchema = z.object({ intent: z.literal("rename"), rank: z.string(), name: rankNameSchema });
export const rankRowSchema = z.object({
  intent: z.enum(["up", "down", "deactivate", "activate"]),
  rank: z.string({ error: "Which rank?" }),
});
export const rankActionSchema = z.discriminatedUnion("intent", [addRankSchema, renameRankSchema, rankRowSchema]);
export type RankAction = z.infer<typeof rankActionSchema>;
