/** Writes every MOC change shares: serials, forms, people, audit entries, notifications. */
import { and, eq, inArray, sql } from "drizzle-orm";
import { chatRooms, mocForms, mocs, mocUsers, serialCounters, users, type TemporaryChange } from "#db/schema";
import type { MocFormKind } from "#db/schema/enums";
import { preparedSql, statementOnce, statementOnceBy, type Executor } from "~/utils/db.server";
import type { EmailContent } from "~/utils/email-layout.server";
import { Invalid } from "~/utils/errors";
import { sanitizeRequiredRichText } from "~/utils/sanitize.server";
import type { z } from "zod";
import {
  entryLink,
  inTransaction,
  lockHead,
  storeHeadSql,
  type ChainEntry,
  type ChainHead,
} from "../audit/audit-chain.server";
import { notify, type NotifyInput, type Recipient, type Recipients } from "../messages/email.server";
import type { NewMocInput, originatorFieldsSchema } from "./moc.schema";
import { resolveScope } from "../fleet/vessel.server";
import { mocEmailName } from "./moc-names";
import { TITLE_AND_VESSEL_OF_M } from "./moc-scope.server";

/**
 * The next `{count}-{year}` for a kind (`moc`, `pcr`), counting from 1 each UTC year. The upsert
 * takes a row lock until the caller's transaction ends, so concurrent creators get distinct
 * numbers; a rolled-back creation leaves no gap, a crash at worst a gap.
 */
export async function nextSerial(
  tx: Executor,
  kind: "moc" | "pcr",
  now = new Date(),
): Promise<{ serial: string; year: number; count: number }> {
  const year = now.getUTCFullYear();
  const [row] = await tx
    .insert(serialCounters)
    .values({ kind, year, last: 1 })
    .onConflictDoUpdate({
      target: [serialCounters.kind, serialCounters.year],
      set: { last: sql`${serialCounters.last} + 1` },
    })
    .returning({ last: serialCounters.last });
  const count = row!.last;
  return { serial: `${count}-${year}`, year, count };
}

/** Creates or replaces one of the MOC's form documents (merging when `merge` is set). */
export async function saveForm(
  tx: Executor,
  input: {
    mocId: string;
    kind: MocFormKind;
    data: Record<string, { value: unknown } | undefined>;
    actorId: string;
    submitted: boolean;
    merge?: boolean;
  },
): Promise<void> {
  const data = Object.fromEntries(Object.entries(input.data).filter(([, v]) => v !== undefined)) as Record<
    string,
    { value: unknown }
  >;
  const now = new Date();
  await saveFormStatement(tx, { merge: Boolean(input.merge), submitted: input.submitted }).execute({
    mocId: input.mocId,
    kind: input.kind,
    data,
    dataText: JSON.stringify(data),
    now,
    nowIso: now.toISOString(),
    actorId: input.actorId,
  });
}

/**
 * saveForm's upsert, one statement per way: merged or replaced data, submitted or a draft. A
 * submitted form submitted again keeps its previous submission (moc_form_revisions), so the next
 * decision can show what changed (app/web/decision-context.server.ts): the same statement copies it
 * first, reading the row as it was before the upsert (every part of a statement sees the rows as
 * they were when it began), so a step's save is one round trip (docs/performance.md).
 */
const saveFormStatement = statementOnceBy(
  (db, way: { merge: boolean; submitted: boolean }) => {
    const upsert = db
      .insert(mocForms)
      .values({
        mocId: sql.placeholder("mocId"),
        kind: sql.placeholder("kind"),
        data: sql.placeholder("data"),
        submittedAt: way.submitted ? sql.placeholder("now") : null,
        submittedBy: way.submitted ? sql.placeholder("actorId") : null,
      })
      .onConflictDoUpdate({
        target: [mocForms.mocId, mocForms.kind],
        set: {
          data: way.merge
            ? sql`${mocForms.data} || ${sql.placeholder("dataText")}::jsonb`
            : sql`${sql.placeholder("dataText")}::jsonb`,
          updatedAt: sql`${sql.placeholder("nowIso")}::timestamptz`,
          ...(way.submitted
            ? { submittedAt: sql`excluded.submitted_at`, submittedBy: sql`excluded.submitted_by` }
            : {}),
        },
      });
    const name = `save_moc_form${way.merge ? "_merged" : ""}${way.submitted ? "_submitted" : ""}`;
    if (!way.submitted) return upsert.prepare(name);
    return preparedSql<never>(
      db,
      sql`with revision as (
          insert into moc_form_revisions (moc_id, kind, data, submitted_at, submitted_by, replaced_at)
          select moc_id, kind, data, submitted_at, submitted_by, ${sql.placeholder("nowIso")}::timestamptz from moc_forms
          where moc_id = ${sql.placeholder("mocId")}::uuid and kind = ${sql.placeholder("kind")} and submitted_at is not null)
        ${upsert.getSQL()}`,
      name,
    );
  },
  (way) => `${way.merge}:${way.submitted}`,
);

export async function addMocUsers(tx: Executor, mocId: string, userIds: (string | null | undefined)[]): Promise<void> {
  const ids = [...new Set(userIds.filter((id): id is string => Boolean(id)))];
  if (ids.length === 0) return;
  await tx
    .insert(mocUsers)
    .values(ids.map((userId) => ({ mocId, userId })))
    .onConflictDoNothing();
}

export async function removeMocUser(tx: Executor, mocId: string, userId: string): Promise<void> {
  await tx.delete(mocUsers).where(and(eq(mocUsers.mocId, mocId), eq(mocUsers.userId, userId)));
}

type RoleHolders = {
  id: string;
  originatorId: string;
  implementerId: string | null;
  approverId: string | null;
  verifierId: string | null;
  hseqId: string | null;
};
export type MocRole = "implementerId" | "approverId" | "verifierId" | "hseqId";

/**
 * A role changes hands: the new holder joins all_users, and the one it replaces leaves it unless
 * they still hold another role, so reading the MOC follows the current assignments. The audit log
 * keeps who was assigned when.
 */
export async function handOverRole(tx: Executor, moc: RoleHolders, role: MocRole, next: string | null): Promise<void> {
  const previous = moc[role];
  const after = { ...moc, [role]: next };
  const stillHolds = [after.originatorId, after.implementerId, after.approverId, after.verifierId, after.hseqId];
  if (previous && previous !== next && !stillHolds.includes(previous)) await removeMocUser(tx, moc.id, previous);
  await addMocUsers(tx, moc.id, [next]);
}

export async function appendLog(
  tx: Executor,
  entry: {
    mocId: string;
    userId: string | null;
    action: string;
    from: string | null;
    to: string | null;
    comment?: string | null;
    /** The absent person `userId` acted for, by delegation. */
    onBehalfOf?: string | null;
  },
): Promise<void> {
  await inTransaction(tx, async (tx) => {
    const head = await lockHead(tx, "moc", entry.mocId);
    const at = new Date();
    const values = {
      mocId: entry.mocId,
      userId: entry.userId,
      onBehalfOf: entry.onBehalfOf ?? null,
      action: entry.action,
      fromStatus: entry.from,
      toStatus: entry.to,
      comment: entry.comment ?? null,
    };
    const link = mocLogLink(entry.mocId, head, { ...values, at });
    await appendLogStatement(tx).execute({ ...values, at: at.toISOString(), ...link });
  });
}

/** A MOC entry's link in its chain (seq, prev_hash, keyed hash, new head): appendLog's and a step's. */
export const mocLogLink = (mocId: string, head: ChainHead, entry: ChainEntry) => entryLink("moc", mocId, head, entry);

const lp = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

const appendLogStatement = statementOnce((db) =>
  preparedSql(
    db,
    sql`with logged as (
        insert into moc_logs (moc_id, user_id, on_behalf_of, action, from_status, to_status, comment, at, seq,
          prev_hash, hash, key_id)
        values (${lp("mocId", "uuid")}, ${lp("userId", "uuid")}, ${lp("onBehalfOf", "uuid")}, ${lp("action", "text")},
          ${lp("fromStatus", "text")}, ${lp("toStatus", "text")}, ${lp("comment", "text")}, ${lp("at", "timestamptz")},
          ${lp("seq", "integer")}, ${lp("prevHash", "text")}, ${lp("hash", "text")}, ${lp("keyId", "text")})
        returning moc_id)
      ${storeHeadSql(
        sql`'moc'`,
        sql`(select moc_id from logged)`,
        lp("seq", "integer"),
        lp("hash", "text"),
        lp("keyId", "text"),
        lp("headMac", "text"),
      )}`,
    "append_moc_log",
  ),
);

/**
 * The people a body names must exist and be active; otherwise 400 with the offending paths.
 * Returns their names by id, one query for all of them.
 */
export async function requireActiveUsers(
  tx: Executor,
  refs: { path: string; id: string | null | undefined }[],
): Promise<Map<string, { name: string; department: string }>> {
  const wanted = refs.filter((r): r is { path: string; id: string } => Boolean(r.id));
  if (wanted.length === 0) return new Map();
  const rows = await tx
    .select({ id: users.id, name: users.name, department: users.department, active: users.active })
    .from(users)
    .where(inArray(users.id, [...new Set(wanted.map((r) => r.id))]));
  const found = new Map(rows.filter((r) => r.active).map((r) => [r.id, { name: r.name, department: r.department }]));
  const missing = wanted.filter((r) => !found.has(r.id));
  if (missing.length) {
    throw new Invalid(
      "Some people named in the request do not exist or are deactivated",
      missing.map((r) => ({ path: r.path, message: "No active user with this id" })),
    );
  }
  return found;
}

export const mocLabel = (serial: string) => `MOC ${serial}`;

/**
 * Emails about a MOC, in the caller's transaction. Their subject and heading name the MOC with
 * its title, "MOC 14-2026 — Bypass of ME2 HT alarm" (docs/decisions/036-vessels-and-crew-access.md).
 */
export async function notifyAboutMoc(
  tx: Executor,
  moc: { id: string; serialNum: string },
  to: Recipients,
  content: Omit<EmailContent, "record">,
  options: Pick<NotifyInput, "linkFor" | "kind"> & {
    found?: Recipient[];
    /** `mocEmailNameOf(tx, moc)` when the caller read it already (in a flight of its own). */
    label?: string;
  } = {},
) {
  const { label: known, ...rest } = options;
  const label = known ?? (await mocEmailNameOf(tx, moc));
  return notify(tx, {
    to,
    ...rest,
    record: { type: "moc", id: moc.id },
    content: { ...content, record: { label, url: `/mocs/${moc.id}` } },
  });
}

/** The MOC as its emails name it (`mocEmailName`): with its title and vessel when recorded. */
export async function mocEmailNameOf(tx: Executor, moc: { id: string; serialNum: string }): Promise<string> {
  const [row] = await tx.execute<{ title: string | null; vessel: string | null }>(
    sql`select ${TITLE_AND_VESSEL_OF_M} from mocs m where m.id = ${moc.id}`,
  );
  return mocEmailName(moc.serialNum, row?.title, row?.vessel);
}

/**
 * Part A's stored form, the one builder: the fields as given, the implementer as picked (id and
 * name), the description sanitised. Issues are keyed by field (`description-of-change`).
 */
export async function partAForm(
  tx: Executor,
  input: NewMocInput,
  implementer: { _id: string; name: string } | null,
): Promise<Record<string, { value: unknown } | undefined>> {
  return {
    // Optional over /api (docs/decisions/036-vessels-and-crew-access.md): absent reads "Not recorded".
    title: input.title,
    vessel: input.vessel ? { value: await resolveScope(tx, input.vessel.value) } : undefined,
    "implementer-name": implementer ? { value: implementer } : undefined,
    // A draft may still lack the description (and the reason and department).
    "description-of-change": input["description-of-change"]
      ? {
          value: sanitizeRequiredRichText(
            input["description-of-change"].value,
            "description-of-change",
            "Description of change",
          ),
        }
      : undefined,
    "reason-for-change": input["reason-for-change"],
    "department-of-change": input["department-of-change"],
    "affected-departments": input["affected-departments"],
    "departments-to-inform": input["departments-to-inform"] ?? { value: [] },
    "change-type": { value: input["change-type"]?.value ?? "permanent" },
    "temporary-until": input["change-type"]?.value === "temporary" ? input["temporary-until"] : undefined,
    "hazards-seen": input["hazards-seen"]?.value ? input["hazards-seen"] : undefined,
    "target-date": proposedTargetDate(input, new Date()),
  };
}

/** Part A's proposed target date, which cannot be in the past (a 400 on `target-date`); absent when not given. */
function proposedTargetDate(input: Pick<z.infer<typeof originatorFieldsSchema>, "target-date">, now: Date) {
  const date = input["target-date"]?.value;
  if (!date) return undefined;
  if (date < now.toISOString().slice(0, 10)) {
    throw new Invalid("The proposed target date cannot be in the past", [
      { path: "target-date", message: "Choose today or a later date" },
    ]);
  }
  return { value: date };
}

/**
 * The temporary change Part A asks for, or null for a permanent one (the default). A submitted
 * temporary change must name its end date, today or later; a draft may leave it out for now.
 */
export function temporaryOfPartA(
  input: Pick<z.infer<typeof originatorFieldsSchema>, "change-type" | "temporary-until">,
  options: { submit: boolean; now: Date },
): TemporaryChange | null {
  if (input["change-type"]?.value !== "temporary") return null;
  const until = input["temporary-until"]?.value;
  if (!until) {
    if (!options.submit) return null;
    throw new Invalid("A temporary change needs the date it must end", [
      { path: "temporary-until", message: "Give the date the temporary change must end" },
    ]);
  }
  if (until < options.now.toISOString().slice(0, 10)) {
    throw new Invalid("The end of a temporary change cannot be in the past", [
      { path: "temporary-until", message: "Choose today or a later date" },
    ]);
  }
  return { until, state: "planned", expired_since: null, restoration: null, extension: null, permanent_moc: null };
}

/** A new MOC row with the next serial and its own chat room. */
export async function insertMoc(
  tx: Executor,
  values: Omit<typeof mocs.$inferInsert, "serialNum" | "serialYear" | "serialCount" | "chatId">,
) {
  const serial = await nextSerial(tx, "moc");
  const [chat] = await tx.insert(chatRooms).values({}).returning({ id: chatRooms.id });
  const [row] = await tx
    .insert(mocs)
    .values({
      ...values,
      serialNum: serial.serial,
      serialYear: serial.year,
      serialCount: serial.count,
      chatId: chat!.id,
    })
    .returning({ id: mocs.id, serialNum: mocs.serialNum });
  return row!;
}

/**
 * A new MOC in `b` (in `a` without an implementer) with copies of the old one's originator form,
 * implementer form and implementation; the actor is its originator. `permanent` (a temporary
 * change made permanent) turns the copied Part A into a permanent change and names why.
 */
export async function cloneMocInto(
  tx: Executor,
  actor: { _id: string; name: string },
  old: { id: string; serialNum: string; implementerId: string | null },
  options: { permanent?: { reason: string } } = {},
): Promise<{ id: string; serialNum: string }> {
  const implementerId = old.implementerId;
  if (implementerId) await requireActiveUsers(tx, [{ path: "old_moc.implementer_id", id: implementerId }]);
  const status = implementerId ? "b" : "a";
  const moc = await insertMoc(tx, {
    status,
    originatorId: actor._id,
    implementerId,
    cloned: true,
    previousMocId: old.id,
  });
  const forms = await tx.select().from(mocForms).where(eq(mocForms.mocId, old.id));
  for (const form of forms.filter((f) => ["originator", "implementer", "implementation"].includes(f.kind))) {
    const data =
      form.kind === "originator" && options.permanent
        ? { ...form.data, "change-type": { value: "permanent" }, "temporary-until": undefined }
        : form.data;
    await saveForm(tx, {
      mocId: moc.id,
      kind: form.kind,
      actorId: actor._id,
      // Part A carries over as submitted; the rest are drafts the new MOC's people will submit.
      submitted: form.kind === "originator" && status === "b",
      data,
    });
  }
  // A plain clone keeps the old temporary end date only as Part A says it; the daily run and the
  // lists read the column, set from Part A when it is submitted again.
  if (!options.permanent) {
    const [row] = await tx.select({ temporary: mocs.temporary }).from(mocs).where(eq(mocs.id, old.id));
    if (row?.temporary) {
      const again = {
        ...row.temporary,
        state: "planned" as const,
        expired_since: null,
        restoration: null,
        extension: null,
        permanent_moc: null,
      };
      await tx.update(mocs).set({ temporary: again }).where(eq(mocs.id, moc.id));
    }
  }
  await addMocUsers(tx, moc.id, [actor._id, implementerId]);
  await appendLog(tx, {
    mocId: moc.id,
    userId: actor._id,
    action: options.permanent
      ? `Cloned from ${mocLabel(old.serialNum)} to make the temporary change permanent`
      : `Cloned from ${mocLabel(old.serialNum)}`,
    from: null,
    to: status,
    comment: options.permanent?.reason ?? null,
  });
  if (implementerId) {
    await notifyAboutMoc(
      tx,
      moc,
      { userIds: [implementerId], except: actor._id },
      {
        event: options.permanent
          ? `${actor.name} started ${mocLabel(moc.serialNum)} to make the temporary change of ${mocLabel(old.serialNum)} permanent, with you as implementer.`
          : `${actor.name} cloned ${mocLabel(old.serialNum)} into ${mocLabel(moc.serialNum)}, with you as implementer.`,
        expectation: "Assess the change (Part B): name the approver and HSEQ user, and set the target date.",
      },
      // The implementer's email links to Part B (the implementer step's page).
      { linkFor: () => `/mocs/${moc.id}/implementer` },
    );
  }
  return moc;
}
