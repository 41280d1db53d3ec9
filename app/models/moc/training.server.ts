/**
 * Training plan items (issue 41, docs/decisions/056-training.md): an action-plan item that is a
 * training names who must attend (its description says what, its due date by when); those who may
 * record attendance say who attended on which day. Each record is added, never changed: a row of
 * `training_attendance` (append-only in PostgreSQL), a copy on the item, and an entry in the MOC's
 * audit chain, in one transaction. A training is done when everyone it names has attended; while
 * one is open, Part F's "Are trainings complete?" cannot be answered yes (moc-closure.ts).
 */
import {
  trainingAttendance,
  type ActionPlan,
  type PlanItemCompletion,
  type TrainingAttendanceRecord,
} from "#db/schema";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import {
  approvedContentFrozen,
  canRecordAttendance,
  canSetTrainingAttendees,
  canViewMoc,
  isMocApproved,
} from "../authz/authz.server";
import { trainingState } from "./moc-closure";
import type { MocDocument } from "./moc-document";
import { notifyAboutMoc, requireActiveUsers } from "./moc-store.server";
import { changeMoc } from "./moc.server";
import { readPlan, writePlan } from "./plan-items.server";
import type { PublicUser } from "../people/user.server";

type Item = ActionPlan["items"][number];

const SETTERS = "Only the originator, the implementer, the assigned HSEQ user or an admin can name who must attend";
const RECORDERS =
  "Only the training's owner, the implementer, the assigned HSEQ user or the HSEQ department can record attendance";
/** A training's done mark follows its attendance: the completion it writes says so. */
export const TRAINING_COMPLETE_NOTE = "Training complete: every person who must attend has attended";

/**
 * The latest day a training can have happened: today wherever a ship may be (UTC+14), so a crew
 * recording in the morning east of Greenwich is not refused, and nothing later.
 */
export const latestTrainingDay = (now = new Date()) =>
  new Date(now.getTime() + 14 * 3600_000).toISOString().slice(0, 10);

/**
 * The item with its done mark following its attendance (a training is done exactly when everyone
 * it names has attended): done with a completion saying so, or open again.
 */
function withDoneFollowingAttendance(item: Item, actor: PublicUser, now: Date): Item {
  const { complete } = trainingState(item.training!);
  if (complete === item.done) return item;
  if (!complete) return { ...item, done: false, completion: null };
  const completion: PlanItemCompletion = {
    by: actor._id,
    byName: actor.name,
    at: now.toISOString(),
    note: TRAINING_COMPLETE_NOTE,
    evidence: null,
  };
  return { ...item, done: true, completion };
}

async function findItem(tx: Parameters<typeof readPlan>[0], mocId: string, itemId: string) {
  const plan = (await readPlan(tx, mocId, "action")) as ActionPlan;
  const item = plan.items.find((i) => i._id === itemId);
  if (!item) throw new NotFound("No such action in this MOC's action plan");
  return { plan, item };
}

const names = (people: { name: string }[]) => people.map((p) => p.name).join(", ");

/**
 * POST /api/training and the trainings page: make an action a training, naming who must attend
 * (the whole list). Before approval the plan editors set it freely (an empty list makes it a plain
 * action again); from approval on people are only added, so an approved training never asks less.
 * Those newly named are told (a notice of kind `action`).
 */
export async function setTrainingAttendees(
  actor: PublicUser,
  input: { mocId: string; itemId: string; attendees: string[] },
): Promise<MocDocument> {
  return changeMoc(
    actor,
    input.mocId,
    { may: canSetTrainingAttendees, forbidden: SETTERS, requireOpen: true },
    async (tx, moc) => {
      const { plan, item } = await findItem(tx, moc.id, input.itemId);
      if (item.cancelled) throw new Conflict("This action is cancelled; it cannot become a training");
      const ids = [...new Set(input.attendees)];
      const found = await requireActiveUsers(
        tx,
        ids.map((id) => ({ path: `attendees.${input.attendees.indexOf(id)}`, id })),
      );
      const before = item.training?.attendees ?? [];
      const frozen = approvedContentFrozen(moc);
      if (frozen) {
        const dropped = before.filter((p) => !ids.includes(p._id));
        if (dropped.length) {
          throw new Conflict(
            `This MOC is approved: people are only added to a training, not removed (${names(dropped)}). Cancel the training with a reason instead`,
          );
        }
      }
      if (ids.length === 0 && !item.training) {
        throw new Invalid("Name at least one person who must attend", [
          { path: "attendees", message: "Name at least one person who must attend" },
        ]);
      }
      const attendees = ids.map((id) => before.find((p) => p._id === id) ?? { _id: id, name: found.get(id)!.name });
      const now = new Date();
      const changed: Item =
        ids.length === 0
          ? (() => {
              const { training: _t, ...plain } = item;
              return { ...plain, done: false, completion: null };
            })()
          : withDoneFollowingAttendance(
              { ...item, training: { attendees, attendance: item.training?.attendance ?? [] } },
              actor,
              now,
            );
      await writePlan(
        tx,
        moc.id,
        "action",
        plan.items.map((i) => (i._id === item._id ? changed : i)),
      );
      const added = attendees.filter((p) => !before.some((b) => b._id === p._id));
      const told = added.map((p) => p._id).filter((id) => id !== actor._id);
      if (told.length) {
        await notifyAboutMoc(
          tx,
          moc,
          { userIds: told, except: actor._id },
          {
            subject: `Training to attend: ${item.description.slice(0, 60)}`,
            event: `${actor.name} named you among the people who must attend the training “${item.description}”.`,
            expectation: item.due
              ? `Attend it by ${item.due}; your attendance is recorded by its owner, the implementer or HSEQ.`
              : "Attend it when it is held; your attendance is recorded by its owner, the implementer or HSEQ.",
            details: [["Training", item.description], ...(item.due ? [["By", item.due] as [string, string]] : [])],
          },
          { kind: "action" },
        );
      }
      if (ids.length === 0) return { action: `Made “${item.description}” a plain action again (not a training)` };
      return {
        action: `${item.training ? "Changed who must attend" : "Made a training of"} the action “${item.description}”`,
        comment: `Must attend: ${names(attendees)}`,
      };
    },
  );
}

/**
 * POST /api/trainingAttendance and the trainings page: records who attended a training on `date`
 * (or, `attended: false`, a correction: who did not after all). Each person must be one of those
 * who must attend; the date not later than today. From approval on, while the MOC is open.
 */
export async function recordAttendance(
  actor: PublicUser,
  input: {
    mocId: string;
    itemId: string;
    attendees: string[];
    date: string;
    attended?: boolean;
    note?: string | null;
  },
): Promise<MocDocument> {
  const attended = input.attended ?? true;
  return changeMoc(
    actor,
    input.mocId,
    { may: (a, moc) => canViewMoc(a, moc), forbidden: RECORDERS, requireOpen: true },
    async (tx, moc) => {
      const { plan, item } = await findItem(tx, moc.id, input.itemId);
      if (!canRecordAttendance(actor, moc, item)) throw new Forbidden(RECORDERS);
      if (!item.training) throw new Conflict("This action is not a training: name who must attend first");
      if (item.cancelled) throw new Conflict("This training is cancelled; its attendance is no longer recorded");
      if (!isMocApproved(moc)) {
        throw new Conflict("This MOC is not approved yet: its trainings are held after approval");
      }
      const issues = [
        ...input.attendees.flatMap((id, i) =>
          item.training!.attendees.some((p) => p._id === id)
            ? []
            : [{ path: `attendees.${i}`, message: "Not one of the people who must attend this training" }],
        ),
        ...(input.date > latestTrainingDay() ? [{ path: "date", message: "The date cannot be in the future" }] : []),
      ];
      if (issues.length) throw new Invalid(issues[0]!.message, issues);
      const people = [...new Set(input.attendees)].map((id) => item.training!.attendees.find((p) => p._id === id)!);
      const now = new Date();
      const rows = await tx
        .insert(trainingAttendance)
        .values(
          people.map((p) => ({
            mocId: moc.id,
            itemId: item._id,
            userId: p._id,
            userName: p.name,
            attended,
            attendedOn: input.date,
            note: input.note ?? null,
            recordedBy: actor._id,
            recordedByName: actor.name,
            recordedAt: now,
          })),
        )
        .returning({ id: trainingAttendance.id, userId: trainingAttendance.userId });
      const records: TrainingAttendanceRecord[] = people.map((p) => ({
        _id: rows.find((r) => r.userId === p._id)!.id,
        user: p._id,
        name: p.name,
        attended,
        on: input.date,
        note: input.note ?? null,
        by: actor._id,
        byName: actor.name,
        at: now.toISOString(),
      }));
      const changed = withDoneFollowingAttendance(
        { ...item, training: { ...item.training, attendance: [...item.training.attendance, ...records] } },
        actor,
        now,
      );
      await writePlan(
        tx,
        moc.id,
        "action",
        plan.items.map((i) => (i._id === item._id ? changed : i)),
      );
      const left = trainingState(changed.training!).missing;
      return {
        action: attended
          ? `Recorded attendance at the training “${item.description}”`
          : `Corrected the attendance at the training “${item.description}”`,
        comment: [
          `${attended ? "Attended" : "Did not attend (correction)"} on ${input.date}: ${names(people)}`,
          input.note,
          left.length ? `Not attended yet: ${names(left)}` : "Everyone who must attend has attended.",
        ]
          .filter(Boolean)
          .join("\n"),
      };
    },
  );
}
