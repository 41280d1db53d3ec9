/**
 * Reading MOCs as the spec's populated documents. The JSON is built by PostgreSQL in one query,
 * whatever the number of MOCs: references (forms, users, all_users, logs with their users) are
 * correlated subqueries on indexed keys, never a query per row from here.
 *
 * The hot reads run as prepared statements (drizzle's `.prepare()`): PostgreSQL then plans each
 * query text once per connection. Planning a document's score of subqueries costs about as much
 * as running them, and `db.execute` plans on every call (docs/performance.md).
 */
import { eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { mocs } from "#db/schema";
import type { MocFormKind } from "#db/schema/enums";
import { getDb, preparedOnce, type Executor } from "~/utils/db.server";
import type { MocAccess } from "./authz.server";

/** `mocs m`: every fragment below refers to the MOC row as `m`. */
const m = alias(mocs, "m");

/** ISO 8601 in UTC with a Z, as clarifications section 1 asks. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A user as responses carry it: never the password hash. */
export const USER_JSON = (alias: string) =>
  `json_build_object('_id', ${alias}.id, 'name', ${alias}.name, 'email', ${alias}.email, 'role', ${alias}.role, ` +
  `'department', ${alias}.department, 'access', ${alias}.access, 'position', ${alias}.position, 'active', ${alias}.active)`;

const userRef = (column: string) => `(select ${USER_JSON("u")} from users u where u.id = ${column})`;

const form = (kind: MocFormKind) =>
  `(select jsonb_build_object('_id', f.id, 'submittedAt', ${iso("f.submitted_at")}, ` +
  `'createdAt', ${iso("f.created_at")}, 'updatedAt', ${iso("f.updated_at")}) || f.data ` +
  `from moc_forms f where f.moc_id = m.id and f.kind = '${kind}')`;

/** The fully populated MOC document for the row `m`. */
const MOC_JSON = `json_build_object(
  '_id', m.id,
  'serial_num', m.serial_num,
  'status', m.status,
  'completed', m.completed,
  'isDeleted', m.is_deleted,
  'cloned', m.cloned,
  'previous_moc', m.previous_moc_id,
  'originator_form', ${form("originator")},
  'implementer_form', ${form("implementer")},
  'hseq_form', ${form("hseq")},
  'approver_form', ${form("approver")},
  'implementation', ${form("implementation")},
  'verifier_form', ${form("verifier")},
  'originator_id', ${userRef("m.originator_id")},
  'implementer_id', ${userRef("m.implementer_id")},
  'approver_id', ${userRef("m.approver_id")},
  'verifier_id', ${userRef("m.verifier_id")},
  'hseq_id', ${userRef("m.hseq_id")},
  'all_users', coalesce((select json_agg(${USER_JSON("u")} order by mu.added_at, u.name)
      from moc_users mu join users u on u.id = mu.user_id where mu.moc_id = m.id), '[]'::json),
  'logs', coalesce((select json_agg(json_build_object('_id', l.id, 'userId', ${userRef("l.user_id")},
      'action', l.action, 'from', l.from_status, 'to', l.to_status, 'comment', l.comment, 'at', ${iso("l.at")})
      order by l.at, l.id) from moc_logs l where l.moc_id = m.id), '[]'::json),
  'decline', m.decline,
  'extentionsAndDeviations', m.deviations,
  'impact_assessment', m.impact_assessment,
  'risk_assessment', m.risk_assessment,
  'action', m.action,
  'manual_plan', m.manual_plan,
  'chat', m.chat_id,
  'target_date', m.target_date,
  'createdAt', ${iso("m.created_at")},
  'updatedAt', ${iso("m.updated_at")}
)`;

/** A populated MOC as returned by the API (its shape is the spec's; typed loosely on purpose). */
export type MocDocument = Record<string, unknown> & {
  _id: string;
  serial_num: string;
  status: string;
  completed: boolean;
};

/** One populated MOC (deleted ones included: callers decide what a deleted MOC means). */
export async function loadMocDocument(id: string, db: Executor = getDb()): Promise<MocDocument | null> {
  const rows = await db
    .select({ doc: sql<MocDocument>`${sql.raw(MOC_JSON)}` })
    .from(m)
    .where(eq(m.id, id))
    .prepare("moc_document")
    .execute();
  return rows[0]?.doc ?? null;
}

/**
 * A populated list as JSON text, ready to be the `data` of a response: PostgreSQL aggregates it,
 * Node neither parses nor re-serialises it.
 */
export async function mocListJson(where: SQL, db: Executor = getDb()): Promise<string> {
  const rows = await db
    .select({
      body: sql<string>`coalesce(json_agg(${sql.raw(MOC_JSON)} order by m.created_at desc, m.id), '[]'::json)::text`,
    })
    .from(m)
    .where(where)
    .prepare("moc_list")
    .execute();
  return rows[0]?.body ?? "[]";
}

const ALL_USER_IDS = sql<string[]>`coalesce((select array_agg(mu.user_id::text) from moc_users mu
  where mu.moc_id = ${m.id}), '{}')`;

const ACCESS_FIELDS = {
  id: m.id,
  status: m.status,
  completed: m.completed,
  isDeleted: m.isDeleted,
  serialNum: m.serialNum,
  chatId: m.chatId,
  targetDate: m.targetDate,
  originatorId: m.originatorId,
  implementerId: m.implementerId,
  approverId: m.approverId,
  verifierId: m.verifierId,
  hseqId: m.hseqId,
  allUserIds: ALL_USER_IDS,
};

/** The row fields the authorization predicates need, with the MOC row locked when `lock` is set. */
export async function loadMocAccess(
  id: string,
  db: Executor,
  options: { lock?: boolean } = {},
): Promise<
  (MocAccess & { id: string; isDeleted: boolean; serialNum: string; chatId: string; targetDate: string | null }) | null
> {
  const query = db.select(ACCESS_FIELDS).from(m).where(eq(m.id, id));
  const rows = await (options.lock ? query.for("update", { of: m }) : query).prepare("moc_access").execute();
  return rows[0] ?? null;
}

const mocDocumentTextQuery = preparedOnce((db) =>
  db
    .select({ ...ACCESS_FIELDS, doc: sql<string>`(${sql.raw(MOC_JSON)})::text` })
    .from(m)
    .where(eq(m.id, sql.placeholder("id")))
    .prepare("moc_document_text"),
);

/**
 * One populated MOC as JSON text, with the fields authorization needs, in one query built once
 * (GET /api/singlemoc: the document goes out as PostgreSQL wrote it, never parsed in Node).
 */
export async function loadMocDocumentText(id: string) {
  const rows = await mocDocumentTextQuery().execute({ id });
  return rows[0] ?? null;
}

/** One form document's fields (`{ key: { value } }`), or null. */
export async function loadForm(
  mocId: string,
  kind: MocFormKind,
  db: Executor = getDb(),
): Promise<{ id: string; data: Record<string, { value: unknown }>; submittedAt: Date | null } | null> {
  const rows = await db.execute<{ id: string; data: Record<string, { value: unknown }>; submitted_at: Date | null }>(
    sql`select id, data, submitted_at from moc_forms where moc_id = ${mocId} and kind = ${kind}`,
  );
  const row = rows[0];
  return row ? { id: row.id, data: row.data, submittedAt: row.submitted_at } : null;
}

export const MOC_SUMMARY_JSON = `json_build_object('_id', m.id, 'serial_num', m.serial_num, 'status', m.status,
  'completed', m.completed, 'target_date', m.target_date, 'createdAt', ${iso("m.created_at")},
  'originator_form', ${form("originator")}, 'originator_id', ${userRef("m.originator_id")})`;
