/**
 * What training items take over /api and the pages (docs/decisions/056-training.md): who must
 * attend an action-plan item that is a training, and who attended it on which day.
 */
import { z } from "zod";
import { isoDate, MAX_TEXT } from "../shared/fields.schema";

const mocId = z.uuid({ error: "Expected the MOC id" });
const itemId = z.string({ error: "Expected the item's _id" }).min(1, { error: "Expected the item's _id" }).max(64);
const people = z.array(z.uuid({ error: "Expected a user id" })).max(500, { error: "At most 500 people" });
const note = z
  .string()
  .trim()
  .max(MAX_TEXT, { error: `Keep the note under ${MAX_TEXT} characters` })
  .optional()
  .transform((v) => v || null);
const PICK_ATTENDED = "Tick at least one person who attended";

/**
 * POST /api/training: makes an action-plan item a training and names who must attend (the whole
 * list; an empty list makes it a plain action again, before approval). From approval on, people
 * may only be added.
 */
export const trainingSchema = z.object({ moc_id: mocId, item_id: itemId, attendees: people });
export type TrainingInput = z.infer<typeof trainingSchema>;

/**
 * POST /api/trainingAttendance: who attended (each one of those who must attend) on `date`, with
 * an optional note. `attended: false` is a correction: these people did not attend after all.
 * Records are added, never changed.
 */
export const trainingAttendanceSchema = z.object({
  moc_id: mocId,
  item_id: itemId,
  attendees: people.min(1, { error: PICK_ATTENDED }),
  date: isoDate,
  attended: z.boolean({ error: "attended must be true or false" }).default(true),
  note,
});
export type TrainingAttendanceInput = z.infer<typeof trainingAttendanceSchema>;

/** The trainings page's two forms, told apart by `intent`; the MOC is the URL's. */
export const trainingPageSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("attendees"), item_id: itemId, attendees: people.default([]) }),
  z.object({
    intent: z.literal("attendance"),
    item_id: itemId,
    attendees: z
      .array(z.uuid({ error: "Expected a user id" }), { error: PICK_ATTENDED })
      .min(1, { error: PICK_ATTENDED })
      .max(500),
    date: isoDate,
    correction: z.literal("on").optional(),
    note,
  }),
]);
