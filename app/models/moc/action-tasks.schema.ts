/**
 * What "My actions" takes and answers over /api and the page (docs/decisions/038-actions-as-tasks.md):
 * marking a plan item done with a note and an optional evidence file.
 */
import { z } from "zod";
import { PLAN_KINDS } from "./moc.schema";
import { MAX_TEXT } from "../shared/fields.schema";

/** What was done: required, so the item's history says it (issue 38 item 7; evidence stays optional). */
const NOTE_REQUIRED = "Say what was done: a note is required to mark an item done";
const note = z
  .string({ error: NOTE_REQUIRED })
  .trim()
  .min(1, { error: NOTE_REQUIRED })
  .max(MAX_TEXT, { error: `Keep the note under ${MAX_TEXT} characters` });

/** POST /api/actionDone. `evidence_id`: a file already attached to the MOC (files are uploaded on its page). */
export const actionDoneSchema = z.object({
  moc_id: z.uuid({ error: "Expected the MOC id" }),
  plan: z.enum(PLAN_KINDS, { error: "plan must be action or manual_plan" }),
  item_id: z.string({ error: "Expected the item's _id" }).min(1, { error: "Expected the item's _id" }).max(64),
  note,
  evidence_id: z.uuid({ error: "evidence_id must be the id of a file attached to this MOC" }).optional(),
});

/** The page's form (multipart: the evidence is the `file` part); the MOC, plan and item are the URL's. */
export const actionDonePageSchema = z.object({ note });

export const myActionAnswer = z.object({
  mocId: z.uuid(),
  serialNum: z.string(),
  mocState: z.string().meta({ description: "The MOC's step in words." }),
  plan: z.enum(PLAN_KINDS),
  itemId: z.string(),
  what: z.string().meta({ description: "The action's description, or the manuals item's document and change." }),
  due: z.string().nullable(),
  daysLeft: z.number().int().nullable().meta({ description: "Days until the due date; negative when overdue." }),
  mayMarkDone: z.boolean().meta({ description: "The MOC is approved: the owner may mark the item done now." }),
});
