/**
 * Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md): a finished
 * record (a completed MOC, a finished PCR) sent to the crews of vessels (optionally given ranks) and
 * office departments, with a due date and a note of what changed; who it reached, kept as they are
 * added (a crew change adds joiners while it is open); one acknowledgement per person.
 *
 * Every write is one transaction with its entry in the record's own audit chain (`moc_logs` for a
 * MOC, `audit_entries` kind "pcr") and its "your turn" notices queued in it. Who may do what:
 * `canCirculate`, `canAcknowledge`, `canSeeCirculation` (authz.server.ts). Where a recipient stands
 * is written once: `recipientState`, its SQL twin `recipientStateSql` beside it.
 */
import { sql, type SQL } from "drizzle-orm";
import { circulations } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import {
  canAcknowledge,
  canCirculate,
  canSeeCirculation,
  currentAssignmentSql,
  isAssignmentCurrent,
  isMocCompleted,
  type Actor,
  type CirculatedRecord,
} from "../authz/authz.server";
import {
  RECIPIENTS_PAGE_SIZE,
  MAX_CIRCULATION_PAGE,
  RECORD_REF,
  RECORD_REF_MESSAGE,
  type CirculationInput,
} from "./circulations.schema";
import { queueEmails, type QueuedEmail } from "../messages/email.server";
import { departmentLabel } from "../shared/labels";
import { loadRecordOfKind, noteInTrail, recordKind } from "../record-kind/record-kind";

/** The kinds circulated and the `circulations` column naming each one's record. */
const CIRCULATED_COLUMNS = { moc: "moc_id", pcr: "pcr_id" } as const;

/** A circulation's record kind over `c` (the circulation): "moc" or "pcr". */
export const CIRCULATED_KIND_SQL = sql.raw(`(case when c.moc_id is not null then 'moc' else 'pcr' end)`);

/**
 * The circulated record's label ("MOC 12-2026") or title (null when it has none) over `c`, as its
 * kind's entry writes them in SQL (`notices`, app/models/kinds/): one expression in the list's
 * statement, whatever the number of circulations.
 */
const circulatedSql = (part: "labelSql" | "titleSql"): SQL =>
  sql`(case ${sql.join(
    Object.entries(CIRCULATED_COLUMNS).map(([kind, column]) => {
      const notices = recordKind(kind).notices;
      if (!notices) throw new Error(`record kind ${kind} is circulated but names no record in SQL (notices)`);
      return sql`when ${sql.raw(`c.${column}`)} is not null then ${notices[part](sql.raw(`c.${column}`))}`;
    }),
    sql` `,
  )} end)`;

/** The circulated record's label over `c`: "MOC 12-2026", "PCR 3-2026". */
export const circulatedLabelSql = () => circulatedSql("labelSql");
/** The circulated record's title over `c`: Part A's title or the PCR's (null when it has none). */
export const circulatedTitleSql = () => circulatedSql("titleSql");

export type { CirculationInput };

export type RecordRef = { kind: "moc" | "pcr"; id: string };

/** "moc:<uuid>" | "pcr:<uuid>" -> RecordRef; Invalid (400) otherwise. */
export function parseRecordRef(text: string): RecordRef {
  const match = RECORD_REF.exec(String(text ?? "").trim());
  if (!match) throw new Invalid(RECORD_REF_MESSAGE, [{ path: "record", message: RECORD_REF_MESSAGE }]);
  return { kind: match[1]!.toLowerCase() as "moc" | "pcr", id: match[2]!.toLowerCase() };
}

type Ref = { _id: string; name: string };

export type CirculationJson = {
  _id: string;
  record: { kind: "moc" | "pcr"; _id: string; label: string; title: string; href: string };
  vessels: Ref[];
  ranks: string[];
  departments: string[];
  due: string;
  note: string;
  createdBy: Ref;
  createdAt: string;
  closedAt: string | null;
};

export type RecipientState = "acknowledged" | "waiting" | "overdue" | "left";

type Counts = { total: number; acknowledged: number; waiting: number; overdue: number; left: number };
type Person = { _id: string; name: string; rank: string | null };

export type CirculationTracking = {
  circulation: CirculationJson;
  totals: Counts;
  /** One row per (vessel, rank); vessel null = reached through an office department; rank null = no rank. */
  byVesselAndRank: ({ vessel: Ref | null; rank: string | null } & Counts)[];
  recipients: {
    user: Person;
    vessel: Ref | null;
    due: string;
    state: RecipientState;
    acknowledgedAt: string | null;
    comment: string | null;
  }[];
  /** Acknowledgements that carry a comment/question, oldest first. */
  questions: { user: Person; vessel: Ref | null; at: string; comment: string }[];
};

export type PendingAcknowledgement = {
  circulationId: string;
  record: CirculationJson["record"];
  note: string;
  due: string;
  overdue: boolean;
  vessel: Ref | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const todayUtc = () => new Date().toISOString().slice(0, 10);
/** Today's UTC date in SQL, as `currentAssignmentSql` reads it. */
const TODAY_SQL = "(now() at time zone 'UTC')::date";

/** A list as an SQL array parameter (one JSON parameter, whatever its length). */
const uuidArray = (ids: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;
const textArray = (values: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
/** An ISO time ("2026-03-04T09:15:00.000Z") of a timestamptz column. */
const iso = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

// ---------------------------------------------------------------------------------------------
// Where a recipient stands: the one definition, and its SQL twin

/**
 * A recipient's state (issue 41): acknowledged once they answered; else "left" when a vessel
 * brought them and they hold no assignment to it that is current today (UTC) or still to come
 * (`isAssignmentCurrent`, or one starting later: a joiner entered before joining is waiting, not
 * gone); else "overdue" past their due date; else "waiting". `recipientStateSql` is its twin.
 */
export function recipientState(
  recipient: {
    acknowledged: boolean;
    vesselId: string | null;
    due: string;
    /** The person's assignments to `vesselId` (any period). */
    assignments: readonly { from: string; to: string | null }[];
  },
  today: string = todayUtc(),
): RecipientState {
  if (recipient.acknowledged) return "acknowledged";
  if (recipient.vesselId !== null && !recipient.assignments.some((a) => isAssignmentHeldOrComing(a, today))) {
    return "left";
  }
  return recipient.due < today ? "overdue" : "waiting";
}

/** An assignment current today or starting later (`isAssignmentCurrent`'s period, or still to come). */
const isAssignmentHeldOrComing = (a: { from: string; to: string | null }, today: string) =>
  isAssignmentCurrent(a, today) || a.from > today;

/** `isAssignmentHeldOrComing` over the `vessel_assignments` row `alias`. */
const assignmentHeldOrComingSql = (alias: string): SQL =>
  sql`(${currentAssignmentSql(alias)} or ${sql.raw(`${alias}.from_date > ${TODAY_SQL}`)})`;

/**
 * `recipientState` over the recipient row `r` (circulation_recipients) and its acknowledgement
 * `a` (left-joined: `a.user_id` null when none), on today's UTC date.
 */
export const recipientStateSql = (r = "r", a = "a"): SQL => sql`(case
  when ${sql.raw(a)}.user_id is not null then 'acknowledged'
  when ${sql.raw(r)}.vessel_id is not null and not exists (select 1 from vessel_assignments rva
    where rva.user_id = ${sql.raw(r)}.user_id and rva.vessel_id = ${sql.raw(r)}.vessel_id
      and ${assignmentHeldOrComingSql("rva")}) then 'left'
  when ${sql.raw(r)}.due < ${sql.raw(TODAY_SQL)} then 'overdue'
  else 'waiting' end)`;

/**
 * The acknowledgement still waits on the recipient `r` (its acknowledgement `a` left-joined) of the
 * circulation `c`: not acknowledged, not left the vessel, and the circulation open (a closed one
 * chases nobody, though its recipients may still answer). Read by `pendingAcknowledgements`, the
 * dashboard and the reminders.
 */
export const pendingRecipientSql = (r = "r", a = "a", c = "c"): SQL =>
  sql`(${sql.raw(c)}.closed_at is null and ${recipientStateSql(r, a)} in ('waiting', 'overdue'))`;

// ---------------------------------------------------------------------------------------------
// The record circulated

type CirculatedLoad = {
  ref: RecordRef;
  label: string;
  title: string;
  href: string;
  originatorId: string;
  /** Null when it may be circulated; else why not (409). */
  notFinished: string | null;
  /** Its status, for its trail's entries. */
  status: string | null;
  access: CirculatedRecord;
};

/** Why a record may not be circulated yet (409), or null once it is finished. */
function notFinished(label: string, access: CirculatedRecord): string | null {
  if (access.kind === "moc") {
    return isMocCompleted(access.moc)
      ? null
      : `${label} is not completed: a MOC is circulated for acknowledgement once it is completed`;
  }
  return access.pcr.status === "finished"
    ? null
    : `${label} is ${access.pcr.status === "withdrawn" ? "withdrawn" : "not finished"}: a PCR is circulated for acknowledgement once its last signature is in`;
}

/**
 * The record with what its rules read (its kind's `load`, a PCR's with whether the actor is a
 * recipient of one of its circulations); 404 for an unknown (or deleted) one.
 */
async function loadRecord(db: Executor, ref: RecordRef, actor?: Actor): Promise<CirculatedLoad> {
  const record = await loadRecordOfKind<CirculatedRecord>(db, ref.kind, ref.id, { reader: actor });
  if (!record) throw new NotFound(`No ${recordKind(ref.kind).label} with this id`);
  const access = record.access;
  return {
    ref,
    label: record.label,
    title: record.title,
    href: record.path,
    originatorId: access.kind === "moc" ? access.moc.originatorId : access.pcr.originatorId,
    notFinished: notFinished(record.label, access),
    status: record.status,
    access,
  };
}

/** One entry in the record's own chain, as its kind writes a note (a MOC's from and to its status). */
async function auditRecord(
  tx: Executor,
  record: { ref: RecordRef; status?: string | null },
  actorId: string,
  action: string,
  comment: string,
): Promise<void> {
  await noteInTrail(tx, record.ref.kind, { id: record.ref.id, status: record.status }, { actorId, action, comment });
}

// ---------------------------------------------------------------------------------------------
// Reading circulations

type CirculationRow = {
  id: string;
  kind: "moc" | "pcr";
  record_id: string;
  label: string;
  title: string | null;
  vessels: Ref[];
  ranks: string[];
  departments: string[];
  due: string;
  note: string;
  created_by: string;
  created_by_name: string;
  created_at: string;
  closed_at: string | null;
};

/** The circulations `ids`, newest first, in one statement. */
async function circulationRows(db: Executor, ids: readonly string[]): Promise<CirculationRow[]> {
  if (ids.length === 0) return [];
  return db.execute<CirculationRow>(sql`select c.id, ${CIRCULATED_KIND_SQL} as kind,
      coalesce(c.moc_id, c.pcr_id) as record_id, ${circulatedLabelSql()} as label,
      ${circulatedTitleSql()} as title,
      (select coalesce(json_agg(json_build_object('_id', v.id, 'name', v.name) order by v.name), '[]'::json)
        from vessels v where v.id = any(c.vessel_ids)) as vessels,
      c.ranks, c.departments, c.due::text as due, c.note, c.created_by, u.name as created_by_name,
      ${iso("c.created_at")} as created_at,
      case when c.closed_at is null then null else ${iso("c.closed_at")} end as closed_at
    from circulations c
      join users u on u.id = c.created_by
    where c.id = any(${uuidArray(ids)})
    order by c.created_at desc, c.id`);
}

/** The circulated record as the lists show it: its label and title, and its page (its kind's). */
const toRecord = (kind: "moc" | "pcr", id: string, label: string, title: string | null) => ({
  kind,
  _id: id,
  label,
  title: title ?? "",
  href: recordKind(kind).page!(id),
});

const toCirculationJson = (row: CirculationRow): CirculationJson => ({
  _id: row.id,
  record: toRecord(row.kind, row.record_id, row.label, row.title),
  vessels: row.vessels,
  ranks: row.ranks ?? [],
  departments: row.departments ?? [],
  due: row.due,
  note: row.note,
  createdBy: { _id: row.created_by, name: row.created_by_name },
  createdAt: row.created_at,
  closedAt: row.closed_at,
});

const pageOf = (options: { page?: number; pageSize?: number } = {}) => {
  const pageSize = Math.min(Math.max(Math.trunc(options.pageSize ?? RECIPIENTS_PAGE_SIZE), 1), MAX_CIRCULATION_PAGE);
  const page = Math.max(Math.trunc(options.page ?? 1), 1);
  return { pageSize, offset: (page - 1) * pageSize };
};

/** Each circulation's tracking (recipients: the page asked for), in a constant number of statements. */
async function trackingOf(
  db: Executor,
  ids: readonly string[],
  options: { page?: number; pageSize?: number } = {},
): Promise<CirculationTracking[]> {
  if (ids.length === 0) return [];
  const { pageSize, offset } = pageOf(options);
  const state = recipientStateSql("r", "a");
  // The rank a person had when they acknowledged, else the one they hold now.
  const rank = sql`(case when a.user_id is not null then a.rank_at else u.rank end)`;
  const base = sql`circulation_recipients r
      join users u on u.id = r.user_id
      left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
      left join vessels v on v.id = r.vessel_id`;
  const [rows, groups, recipients, questions] = await Promise.all([
    circulationRows(db, ids),
    db.execute<{
      circulation_id: string;
      vessel_id: string | null;
      vessel_name: string | null;
      rank: string | null;
      total: number;
      acknowledged: number;
      waiting: number;
      overdue: number;
      left: number;
    }>(sql`select circulation_id, vessel_id, vessel_name, rank, count(*)::int as total,
        count(*) filter (where state = 'acknowledged')::int as acknowledged,
        count(*) filter (where state = 'waiting')::int as waiting,
        count(*) filter (where state = 'overdue')::int as overdue,
        count(*) filter (where state = 'left')::int as left
      from (select r.circulation_id, r.vessel_id, v.name as vessel_name, ${rank} as rank, ${state} as state
        from ${base} where r.circulation_id = any(${uuidArray(ids)})) s
        left join ranks rk on rk.name = s.rank
      group by circulation_id, vessel_id, vessel_name, rank, rk.sort
      order by circulation_id, vessel_name nulls last, vessel_id, rk.sort nulls last, rank nulls last`),
    db.execute<{
      circulation_id: string;
      user_id: string;
      name: string;
      rank: string | null;
      vessel_id: string | null;
      vessel_name: string | null;
      due: string;
      state: RecipientState;
      acknowledged_at: string | null;
      comment: string | null;
    }>(sql`select * from (select r.circulation_id, r.user_id, coalesce(a.name_at, u.name) as name, ${rank} as rank,
          r.vessel_id, v.name as vessel_name, r.due::text as due, ${state} as state,
          case when a.user_id is null then null else ${iso("a.at")} end as acknowledged_at, a.comment,
          row_number() over (partition by r.circulation_id
            order by v.name nulls last, r.vessel_id, rk.sort nulls last, ${rank} nulls last, u.name, r.user_id) as n
        from ${base} left join ranks rk on rk.name = ${rank}
        where r.circulation_id = any(${uuidArray(ids)})) x
      where n > ${offset} and n <= ${offset + pageSize}
      order by circulation_id, n`),
    db.execute<{
      circulation_id: string;
      user_id: string;
      name: string;
      rank: string | null;
      vessel_id: string | null;
      vessel_name: string | null;
      at: string;
      comment: string;
    }>(sql`select a.circulation_id, a.user_id, a.name_at as name, a.rank_at as rank, a.vessel_id_at as vessel_id,
        a.vessel_name_at as vessel_name, ${iso("a.at")} as at, a.comment
      from acknowledgements a
      where a.circulation_id = any(${uuidArray(ids)}) and a.comment is not null and a.comment <> ''
      order by a.at, a.user_id`),
  ]);
  const vesselOf = (id: string | null, name: string | null) => (id ? { _id: id, name: name ?? "" } : null);
  return rows.map((row) => {
    const byVesselAndRank = groups
      .filter((g) => g.circulation_id === row.id)
      .map((g) => ({
        vessel: vesselOf(g.vessel_id, g.vessel_name),
        rank: g.rank,
        total: g.total,
        acknowledged: g.acknowledged,
        waiting: g.waiting,
        overdue: g.overdue,
        left: g.left,
      }));
    const totals = byVesselAndRank.reduce(
      (sum, g) => ({
        total: sum.total + g.total,
        acknowledged: sum.acknowledged + g.acknowledged,
        waiting: sum.waiting + g.waiting,
        overdue: sum.overdue + g.overdue,
        left: sum.left + g.left,
      }),
      { total: 0, acknowledged: 0, waiting: 0, overdue: 0, left: 0 },
    );
    return {
      circulation: toCirculationJson(row),
      totals,
      byVesselAndRank,
      recipients: recipients
        .filter((r) => r.circulation_id === row.id)
        .map((r) => ({
          user: { _id: r.user_id, name: r.name, rank: r.rank },
          vessel: vesselOf(r.vessel_id, r.vessel_name),
          due: r.due,
          state: r.state,
          acknowledgedAt: r.acknowledged_at,
          comment: r.comment,
        })),
      questions: questions
        .filter((q) => q.circulation_id === row.id)
        .map((q) => ({
          user: { _id: q.user_id, name: q.name, rank: q.rank },
          vessel: vesselOf(q.vessel_id, q.vessel_name),
          at: q.at,
          comment: q.comment,
        })),
    };
  });
}

/** The circulation's record, for its rules; 404 for an unknown circulation. */
async function circulationRecord(
  db: Executor,
  circulationId: string,
  actor: Actor,
  options: { lock?: boolean } = {},
): Promise<{ record: CirculatedLoad; closed: boolean }> {
  if (!UUID.test(circulationId)) throw new NotFound("No circulation with this id");
  const [row] = await db.execute<{ moc_id: string | null; pcr_id: string | null; closed: boolean }>(
    sql`select moc_id, pcr_id, closed_at is not null as closed from circulations where id = ${circulationId}
      ${options.lock ? sql`for update` : sql``}`,
  );
  if (!row) throw new NotFound("No circulation with this id");
  const ref: RecordRef = row.moc_id ? { kind: "moc", id: row.moc_id } : { kind: "pcr", id: row.pcr_id! };
  return { record: await loadRecord(db, ref, actor), closed: row.closed };
}

const SEE_REFUSAL = "You may not read this record, so you cannot see its circulations";

/** One circulation's tracking: whoever may read its record (403 otherwise). Recipients paged (50 by default). */
export async function circulationTracking(
  actor: Actor,
  circulationId: string,
  options: { page?: number; pageSize?: number } = {},
  db: Executor = getDb(),
): Promise<CirculationTracking> {
  const { record } = await circulationRecord(db, circulationId, actor);
  if (!canSeeCirculation(actor, record.access)) throw new Forbidden(SEE_REFUSAL);
  return (await trackingOf(db, [circulationId], options))[0]!;
}

/** A record's circulations, newest first, each with its figures and its first page of recipients. */
export async function circulationsOfRecord(
  actor: Actor,
  ref: RecordRef,
  db: Executor = getDb(),
): Promise<CirculationTracking[]> {
  const record = await loadRecord(db, ref, actor);
  if (!canSeeCirculation(actor, record.access)) throw new Forbidden(SEE_REFUSAL);
  const ids = await db.execute<{ id: string }>(
    sql`select id from circulations where ${sql.raw(CIRCULATED_COLUMNS[ref.kind])} = ${ref.id}`,
  );
  return trackingOf(
    db,
    ids.map((r) => r.id),
    { page: 1, pageSize: RECIPIENTS_PAGE_SIZE },
  );
}

/** The caller's waiting acknowledgements (`pendingRecipientSql`), soonest due first, paged (50 by default). */
export async function pendingAcknowledgements(
  actor: Actor,
  options: { page?: number; pageSize?: number } = {},
  db: Executor = getDb(),
): Promise<{ items: PendingAcknowledgement[]; total: number }> {
  const { pageSize, offset } = pageOf(options);
  const rows = await db.execute<{
    circulation_id: string;
    kind: "moc" | "pcr";
    record_id: string;
    label: string;
    title: string | null;
    note: string;
    due: string;
    overdue: boolean;
    vessel_id: string | null;
    vessel_name: string | null;
    total: number;
  }>(sql`select c.id as circulation_id, ${CIRCULATED_KIND_SQL} as kind,
      coalesce(c.moc_id, c.pcr_id) as record_id, ${circulatedLabelSql()} as label,
      ${circulatedTitleSql()} as title,
      c.note, r.due::text as due, r.due < ${sql.raw(TODAY_SQL)} as overdue, r.vessel_id, v.name as vessel_name,
      count(*) over ()::int as total
    from circulation_recipients r
      join circulations c on c.id = r.circulation_id
      left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
      left join vessels v on v.id = r.vessel_id
    where r.user_id = ${actor._id} and ${pendingRecipientSql("r", "a", "c")}
    order by r.due, c.created_at, c.id
    limit ${pageSize} offset ${offset}`);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && offset > 0) {
    // Past the last page: still say how many there are.
    const [count] = await db.execute<{ n: number }>(sql`select count(*)::int as n from circulation_recipients r
      join circulations c on c.id = r.circulation_id
      left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
      where r.user_id = ${actor._id} and ${pendingRecipientSql("r", "a", "c")}`);
    total = count?.n ?? 0;
  }
  return {
    items: rows.map((r) => ({
      circulationId: r.circulation_id,
      record: toRecord(r.kind, r.record_id, r.label, r.title),
      note: r.note,
      due: r.due,
      overdue: r.overdue,
      vessel: r.vessel_id ? { _id: r.vessel_id, name: r.vessel_name ?? "" } : null,
    })),
    total,
  };
}

/** Whether the actor is a recipient of the circulation and has not answered yet, and when they did. */
export async function myAcknowledgement(
  actor: Actor,
  circulationId: string,
  db: Executor = getDb(),
): Promise<{ recipient: boolean; at: string | null; comment: string | null }> {
  if (!UUID.test(circulationId)) return { recipient: false, at: null, comment: null };
  const [row] = await db.execute<{ at: string | null; comment: string | null }>(sql`select
      case when a.user_id is null then null else ${iso("a.at")} end as at, a.comment
    from circulation_recipients r
      left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
    where r.circulation_id = ${circulationId} and r.user_id = ${actor._id}`);
  return { recipient: Boolean(row), at: row?.at ?? null, comment: row?.comment ?? null };
}

// ---------------------------------------------------------------------------------------------
// Circulating

/** The form's choices: the active vessels and the ranks to offer (the rank list when there is one). */
export async function circulationChoices(db: Executor = getDb()): Promise<{ vessels: Ref[]; ranks: string[] }> {
  const [vessels, ranks] = await Promise.all([
    db.execute<Ref>(sql`select id as "_id", name from vessels where active order by name, id`),
    rankNames(db, { activeOnly: true }),
  ]);
  return { vessels: [...vessels], ranks };
}

/** The rank list (`ranks`, issue 41), in its order; null while the list does not exist. */
async function rankNames(db: Executor, options: { activeOnly?: boolean } = {}): Promise<string[]> {
  const [exists] = await db.execute<{ present: boolean }>(
    sql`select to_regclass('public.ranks') is not null as present`,
  );
  if (!exists?.present) return [];
  const rows = await db.execute<{ name: string }>(
    sql`select name from ranks ${options.activeOnly ? sql`where active` : sql``} order by sort, name`,
  );
  return rows.map((r) => r.name);
}

/** "MV Polaris and MV Aurora (Master, Chief Officer) and the HSEQ and Fleet departments". */
function audienceText(vessels: string[], ranks: string[], departments: string[]): string {
  const parts: string[] = [];
  if (vessels.length) parts.push(`${vessels.join(", ")}${ranks.length ? ` (${ranks.join(", ")})` : ""}`);
  if (departments.length) {
    const names = departments.map(departmentLabel);
    parts.push(`the ${names.join(", ")} department${names.length > 1 ? "s" : ""}`);
  }
  return parts.join(" and ");
}

type Reached = { id: string; name: string; email: string; vessel_id: string | null; due: string };

/** The "your turn" email of each person reached: what changed, the record, their due date, the acknowledge page. */
function yourTurnEmails(
  reached: readonly Reached[],
  circulation: { id: string; note: string; recordLabel: string; recordId: string; kind: "moc" | "pcr" },
  by: string,
): QueuedEmail[] {
  return reached.map((person) => ({
    to: { id: person.id, name: person.name, email: person.email },
    kind: "step_waiting",
    record: { type: circulation.kind, id: circulation.recordId },
    content: {
      record: { label: circulation.recordLabel, url: `/circulations/${circulation.id}` },
      subject: `Please read and acknowledge by ${person.due}`,
      event: `${by} circulated this change for you to read and acknowledge.`,
      expectation: `Read the change (the link opens it, with its print view), then confirm "I have read and understood" by ${person.due}. You may add a question for the author.`,
      details: [
        ["What changed", circulation.note],
        ["Due", person.due],
      ],
    },
  }));
}

/**
 * Circulates a finished record: its originator, the HSEQ department or an admin (403); a MOC
 * completed or a PCR finished (409); vessels active, ranks of the list, at least one vessel or
 * department, a due date from today, a note (400). Reaches everyone active assigned to the vessels
 * today or from a later day (rank filter when given) and every active person of the departments,
 * once each (through the vessel when both), never the person circulating; 409 when that is nobody.
 * One transaction: the circulation, its recipients, the entry in the record's chain and one "your
 * turn" notice per recipient.
 */
export async function circulate(
  actor: Actor,
  input: CirculationInput,
  db: Executor = getDb(),
): Promise<CirculationJson> {
  const ref = parseRecordRef(input.record);
  const vesselIds = [...new Set(input.vessels.map((v) => v.toLowerCase()))];
  const ranks = [...new Set(input.ranks)];
  const departments = [...new Set(input.departments)];
  const note = input.note.trim();
  return db.transaction(async (tx) => {
    const record = await loadRecord(tx, ref, actor);
    if (!canCirculate(actor, record)) {
      throw new Forbidden("Only the record's originator, the HSEQ department or an admin circulates it");
    }
    if (record.notFinished) throw new Conflict(record.notFinished);

    const [found, rankList] = await Promise.all([
      tx.execute<{ id: string; name: string; active: boolean }>(
        sql`select id, name, active from vessels where id = any(${uuidArray(vesselIds)})`,
      ),
      ranks.length ? rankNames(tx) : Promise.resolve([]),
    ]);
    const issues = [
      ...vesselIds.flatMap((id, i) => {
        const vessel = found.find((v) => v.id === id);
        if (!vessel) return [{ path: `vessels.${i}`, message: `No vessel with the id ${id}` }];
        return vessel.active ? [] : [{ path: `vessels.${i}`, message: `${vessel.name} (${id}) is not active` }];
      }),
      ...(rankList.length
        ? ranks.flatMap((rank, i) =>
            rankList.includes(rank) ? [] : [{ path: `ranks.${i}`, message: `"${rank}" is not a rank of the list` }],
          )
        : []),
    ];
    if (issues.length) throw new Invalid("The circulation names a vessel or a rank that is not there", issues);

    const [circulation] = await tx
      .insert(circulations)
      .values({
        mocId: ref.kind === "moc" ? ref.id : null,
        pcrId: ref.kind === "pcr" ? ref.id : null,
        vesselIds,
        ranks,
        departments,
        due: input.due,
        note,
        createdBy: actor._id,
      })
      .returning({ id: circulations.id });
    const id = circulation!.id;

    // Everyone reached, in one statement: the vessels' crews (today's or a later day's assignment;
    // one joining later is due a week after joining when that is later), then the departments'
    // people not already reached through a vessel.
    const reached = await tx.execute<Reached>(sql`with crew as (
        select distinct on (va.user_id) va.user_id, va.vessel_id,
          case when va.from_date > ${sql.raw(TODAY_SQL)} then greatest(${input.due}::date, va.from_date + 7)
            else ${input.due}::date end as due
        from vessel_assignments va join users u on u.id = va.user_id
        where va.vessel_id = any(${uuidArray(vesselIds)}) and u.active and u.id <> ${actor._id}
          and ${assignmentHeldOrComingSql("va")}
          and (${ranks.length} = 0 or u.rank = any(${textArray(ranks)}))
        order by va.user_id, (va.from_date <= ${sql.raw(TODAY_SQL)}) desc, va.from_date, va.vessel_id),
      office as (
        select u.id as user_id, null::uuid as vessel_id, ${input.due}::date as due from users u
        where u.active and u.id <> ${actor._id} and u.department::text = any(${textArray(departments)})
          and u.id not in (select user_id from crew)),
      added as (
        insert into circulation_recipients (circulation_id, user_id, vessel_id, due)
        select ${id}, user_id, vessel_id, due from (select * from crew union all select * from office) everyone
        on conflict do nothing
        returning user_id, vessel_id, due)
      select u.id, u.name, u.email, added.vessel_id, added.due::text as due
      from added join users u on u.id = added.user_id order by u.email`);
    if (reached.length === 0) {
      throw new Conflict(
        "This circulation would reach nobody: no active person is assigned to those vessels (with those ranks) or in those departments",
      );
    }

    const [by] = await tx.execute<{ name: string }>(sql`select name from users where id = ${actor._id}`);
    const vesselNames = vesselIds.map((vid) => found.find((v) => v.id === vid)!.name);
    await auditRecord(
      tx,
      record,
      actor._id,
      "Circulated for acknowledgement",
      `To ${audienceText(vesselNames, ranks, departments)}: ${reached.length} ${reached.length === 1 ? "person" : "people"}, due ${input.due}. What changed: ${note}`,
    );
    await queueEmails(
      tx,
      yourTurnEmails(
        reached,
        {
          id,
          note,
          recordLabel: record.title ? `${record.label} — ${record.title}` : record.label,
          recordId: ref.id,
          kind: ref.kind,
        },
        by?.name ?? "Someone",
      ),
    );
    return toCirculationJson((await circulationRows(tx, [id]))[0]!);
  });
}

/**
 * Closes a circulation (who may circulate the record): it takes no more joiners at a crew change
 * and chases nobody; its recipients may still acknowledge. 409 when closed already. In the
 * record's chain.
 */
export async function closeCirculation(actor: Actor, circulationId: string, db: Executor = getDb()): Promise<void> {
  await db.transaction(async (tx) => {
    const { record, closed } = await circulationRecord(tx, circulationId, actor, { lock: true });
    if (!canCirculate(actor, record)) {
      throw new Forbidden("Only the record's originator, the HSEQ department or an admin closes its circulation");
    }
    if (closed) throw new Conflict("This circulation is closed already");
    const [figures] = await tx.execute<{ total: number; acknowledged: number; due: string }>(sql`update circulations c
      set closed_at = now(), closed_by = ${actor._id}
      where c.id = ${circulationId}
      returning c.due::text as due,
        (select count(*)::int from circulation_recipients r where r.circulation_id = c.id) as total,
        (select count(*)::int from acknowledgements a where a.circulation_id = c.id) as acknowledged`);
    await auditRecord(
      tx,
      record,
      actor._id,
      "Circulation closed",
      `Due ${figures!.due}: ${figures!.acknowledged} of ${figures!.total} acknowledged`,
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Acknowledging

/**
 * "Read and understood": a recipient only (403; 404 for an unknown circulation), once. Kept with
 * the person's name, rank and vessel at the time and their optional comment (plain text), and
 * written to the record's chain. Answering again changes nothing (`created` false), and of two
 * concurrent answers one is kept (the primary key; the chain's entry only when the row went in).
 * A closed circulation still takes its recipients' answers.
 */
export async function acknowledge(
  actor: Actor,
  input: { circulationId: string; comment?: string | null },
  db: Executor = getDb(),
): Promise<{ created: boolean; at: string }> {
  const comment = input.comment?.trim() || null;
  return db.transaction(async (tx) => {
    if (!UUID.test(input.circulationId)) throw new NotFound("No circulation with this id");
    const [row] = await tx.execute<{
      moc_id: string | null;
      pcr_id: string | null;
      recipient: boolean;
      vessel_id: string | null;
      vessel_name: string | null;
      name: string;
      rank: string | null;
      department: string;
    }>(sql`select c.moc_id, c.pcr_id, r.user_id is not null as recipient, r.vessel_id, v.name as vessel_name,
        u.name, u.rank, u.department
      from circulations c
        join users u on u.id = ${actor._id}
        left join circulation_recipients r on r.circulation_id = c.id and r.user_id = u.id
        left join vessels v on v.id = r.vessel_id
      where c.id = ${input.circulationId}`);
    if (!row) throw new NotFound("No circulation with this id");
    if (!canAcknowledge(actor, { recipientIds: row.recipient ? [actor._id] : [] })) {
      throw new Forbidden("This circulation was not sent to you, so there is nothing for you to acknowledge");
    }
    const [inserted] = await tx.execute<{ at: string }>(sql`insert into acknowledgements
        (circulation_id, user_id, name_at, rank_at, vessel_id_at, vessel_name_at, comment)
      values (${input.circulationId}, ${actor._id}, ${row.name}, ${row.rank}, ${row.vessel_id}, ${row.vessel_name}, ${comment})
      on conflict do nothing
      returning ${iso("at")} as at`);
    if (!inserted) {
      const [earlier] = await tx.execute<{ at: string }>(sql`select ${iso("at")} as at from acknowledgements
        where circulation_id = ${input.circulationId} and user_id = ${actor._id}`);
      return { created: false, at: earlier!.at };
    }
    const who = [row.name, row.rank, row.vessel_name ?? `${departmentLabel(row.department)} department`]
      .filter(Boolean)
      .join(", ");
    const ref: RecordRef = row.moc_id ? { kind: "moc", id: row.moc_id } : { kind: "pcr", id: row.pcr_id! };
    // The record's kind reads its status for the note when its trail keeps one (a MOC's).
    await auditRecord(
      tx,
      { ref },
      actor._id,
      "Acknowledged (read and understood)",
      comment ? `${who}: ${comment}` : who,
    );
    return { created: true, at: inserted.at };
  });
}

// ---------------------------------------------------------------------------------------------
// Crew changes

/**
 * A crew assignment was added (vessel.server.ts `addAssignment`, in its transaction): the person
 * joins each open circulation naming that vessel whose rank filter admits them, unless already a
 * recipient, due a week after joining when that is later than the circulation's date, with their
 * "your turn" notice. Nothing for an assignment that ended before today.
 */
export async function addJoinerToCirculations(
  tx: Executor,
  assignment: { userId: string; vesselId: string; fromDate: string; toDate: string | null },
): Promise<void> {
  if (assignment.toDate !== null && assignment.toDate < todayUtc()) return;
  const joined = await tx.execute<
    Reached & {
      circulation_id: string;
      note: string;
      kind: "moc" | "pcr";
      record_id: string;
      label: string;
      by: string;
    }
  >(sql`with added as (
      insert into circulation_recipients (circulation_id, user_id, vessel_id, due)
      select c.id, u.id, ${assignment.vesselId}::uuid, greatest(c.due, ${assignment.fromDate}::date + 7)
      from circulations c join users u on u.id = ${assignment.userId}::uuid
      where c.closed_at is null and ${assignment.vesselId}::uuid = any(c.vessel_ids) and u.active
        and u.id <> c.created_by and (cardinality(c.ranks) = 0 or u.rank = any(c.ranks))
      on conflict do nothing
      returning circulation_id, user_id, vessel_id, due)
    select added.circulation_id, u.id, u.name, u.email, added.vessel_id, added.due::text as due, c.note,
      ${CIRCULATED_KIND_SQL} as kind, coalesce(c.moc_id, c.pcr_id) as record_id,
      ${circulatedLabelSql()} || coalesce(' — ' || ${circulatedTitleSql()}, '') as label,
      creator.name as by
    from added
      join users u on u.id = added.user_id
      join circulations c on c.id = added.circulation_id
      join users creator on creator.id = c.created_by
    order by c.created_at, c.id`);
  if (joined.length === 0) return;
  await queueEmails(
    tx,
    joined.flatMap((j) =>
      yourTurnEmails(
        [j],
        { id: j.circulation_id, note: j.note, recordLabel: j.label, recordId: j.record_id, kind: j.kind },
        j.by,
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// What the pages show

/** The new-circulation form: the record (who may circulate it, 403; finished, 409) and the choices. */
export async function circulationDraft(
  actor: Actor,
  ref: RecordRef,
  db: Executor = getDb(),
): Promise<{ record: CirculationJson["record"]; vessels: Ref[]; ranks: string[] }> {
  const record = await loadRecord(db, ref, actor);
  if (!canCirculate(actor, record)) {
    throw new Forbidden("Only the record's originator, the HSEQ department or an admin circulates it");
  }
  if (record.notFinished) throw new Conflict(record.notFinished);
  const choices = await circulationChoices(db);
  return {
    record: { kind: ref.kind, _id: ref.id, label: record.label, title: record.title, href: record.href },
    ...choices,
  };
}

/** A record page's "Circulation" section: null while the record is not finished (or not readable). */
export async function circulationsPanel(
  actor: Actor,
  ref: RecordRef,
  db: Executor = getDb(),
): Promise<{
  mayCirculate: boolean;
  circulations: (Pick<CirculationJson, "_id" | "due" | "note" | "createdAt" | "closedAt" | "createdBy"> & {
    totals: Counts;
  })[];
} | null> {
  const record = await loadRecord(db, ref, actor);
  if (record.notFinished || !canSeeCirculation(actor, record.access)) return null;
  const rows = await db.execute<{
    id: string;
    due: string;
    note: string;
    created_at: string;
    closed_at: string | null;
    created_by: string;
    created_by_name: string;
    total: number;
    acknowledged: number;
    waiting: number;
    overdue: number;
    left: number;
  }>(sql`select c.id, c.due::text as due, c.note, ${iso("c.created_at")} as created_at,
      case when c.closed_at is null then null else ${iso("c.closed_at")} end as closed_at,
      c.created_by, u.name as created_by_name,
      count(s.state)::int as total,
      count(*) filter (where s.state = 'acknowledged')::int as acknowledged,
      count(*) filter (where s.state = 'waiting')::int as waiting,
      count(*) filter (where s.state = 'overdue')::int as overdue,
      count(*) filter (where s.state = 'left')::int as left
    from circulations c
      join users u on u.id = c.created_by
      left join lateral (select ${recipientStateSql("r", "a")} as state from circulation_recipients r
        left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
        where r.circulation_id = c.id) s on true
    where ${sql.raw(`c.${CIRCULATED_COLUMNS[ref.kind]}`)} = ${ref.id}
    group by c.id, u.name
    order by c.created_at desc, c.id`);
  return {
    mayCirculate: canCirculate(actor, record),
    circulations: rows.map((r) => ({
      _id: r.id,
      due: r.due,
      note: r.note,
      createdAt: r.created_at,
      closedAt: r.closed_at,
      createdBy: { _id: r.created_by, name: r.created_by_name },
      totals: { total: r.total, acknowledged: r.acknowledged, waiting: r.waiting, overdue: r.overdue, left: r.left },
    })),
  };
}

/**
 * A circulation's page: its tracking (one page of recipients), the viewer's own answer when they
 * are a recipient, and whether they may close it.
 */
export async function circulationPage(
  actor: Actor,
  circulationId: string,
  options: { page?: number; pageSize?: number } = {},
  db: Executor = getDb(),
): Promise<{
  tracking: CirculationTracking;
  me: { recipient: boolean; acknowledgedAt: string | null; comment: string | null };
  mayClose: boolean;
}> {
  const { record, closed } = await circulationRecord(db, circulationId, actor);
  if (!canSeeCirculation(actor, record.access)) throw new Forbidden(SEE_REFUSAL);
  const [[tracking], mine] = await Promise.all([
    trackingOf(db, [circulationId], options),
    myAcknowledgement(actor, circulationId, db),
  ]);
  return {
    tracking: tracking!,
    me: { recipient: mine.recipient, acknowledgedAt: mine.at, comment: mine.comment },
    mayClose: !closed && canCirculate(actor, record),
  };
}
