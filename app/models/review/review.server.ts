/**
 * Year-end reviews (docs/decisions/011-year-end-reviews.md): a document per year with sections, participants,
 * the year's MOC summary, three rich-text assessments and follow-up actions. Anyone signed in
 * reads them; admins and the HSEQ department write them (authz `canWriteReviews`).
 *
 * The MOC summary is a snapshot counted in one SQL query from the MOCs created in that UTC
 * calendar year (soft-deleted ones left out), or the numbers a client gives. See
 * docs/decisions/011-year-end-reviews.md.
 */
import { desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { users, yearEndReviews, type MocSummary } from "#db/schema";
import { DEPARTMENTS, type ReviewActionStatus } from "#db/schema/enums";
import { getDb, type Executor } from "~/utils/db.server";
import { Forbidden, Invalid, NotFound, type Issue } from "~/utils/errors";
import { sanitizeRichText } from "~/utils/sanitize.server";
import { appendAudit } from "../audit/audit.server";
import { canReadRecords, canWriteReviews, type Actor } from "../authz/authz.server";
import { computeInsights, MOCS_WITH_DEPARTMENT } from "../insights/insights.server";
import { SUMMARY_STATUSES, type ReviewInput } from "./review.schema";
import { toPublicUser, type PublicUser } from "../people/user.server";
import { afterKey, cut, type PageOf, type PageRequest } from "../shared/keyset";
import { csvStream } from "../records-out/csv-export.server";

type ReviewRow = typeof yearEndReviews.$inferSelect;

export type ReviewDocument = {
  _id: string;
  year: number;
  title: string;
  sections: { heading: string; body: string }[];
  participants: PublicUser[];
  moc_summary: MocSummary;
  effectiveness: string;
  improvements: string;
  issues: string;
  actions: { description: string; owner: PublicUser | null; due: string; status: ReviewActionStatus }[];
  createdBy: PublicUser | null;
  updatedBy: PublicUser | null;
  createdAt: string;
  updatedAt: string;
};

// ---------------------------------------------------------------------------------------------
// Permissions

/** Admins and the HSEQ department; anyone else gets 403 before their body is even read. */
export function requireReviewWriter(actor: Actor): void {
  if (!canWriteReviews(actor)) throw new Forbidden("Only admins and the HSEQ department can write year-end reviews");
}

function requireReviewReader(actor: Actor): void {
  if (!canReadRecords(actor)) throw new Forbidden("You cannot read year-end reviews");
}

// ---------------------------------------------------------------------------------------------
// The MOC summary

/**
 * The year's MOCs counted in one query: created in that UTC calendar year and not deleted. A MOC's
 * department is its Part A `department-of-change` (the originator's department when that is
 * missing); its status is the one the app shows (`completed` for a closed MOC, else its code).
 */
export async function countYearMocs(year: number, db: Executor = getDb()): Promise<MocSummary> {
  const [row] = await db.execute<{
    total: number;
    completed: number;
    declined: number;
    by_department: Record<string, number>;
    by_status: Record<string, number>;
  }>(sql`
    with y as (
      select case when m.completed then 'completed' else m.status end as shown_status,
             m.completed, m.status = 'decline' as declined, m.department
      from ${MOCS_WITH_DEPARTMENT} m
      where not m.is_deleted
        and m.created_at >= make_timestamptz(${year}::int, 1, 1, 0, 0, 0, 'UTC')
        and m.created_at < make_timestamptz(${year}::int + 1, 1, 1, 0, 0, 0, 'UTC')
    )
    select count(*)::int as total,
      (count(*) filter (where completed))::int as completed,
      (count(*) filter (where declined and not completed))::int as declined,
      coalesce((select json_object_agg(department, n)
        from (select department, count(*)::int as n from y group by department) d), '{}'::json) as by_department,
      coalesce((select json_object_agg(shown_status, n)
        from (select shown_status, count(*)::int as n from y group by shown_status) s), '{}'::json) as by_status
    from y`);
  const counted = row!;
  return {
    total: counted.total,
    completed: counted.completed,
    declined: counted.declined,
    open: counted.total - counted.completed - counted.declined,
    by_department: { ...Object.fromEntries(DEPARTMENTS.map((d) => [d, 0])), ...counted.by_department },
    by_status: { ...Object.fromEntries(SUMMARY_STATUSES.map((s) => [s, 0])), ...counted.by_status },
    computed_at: new Date().toISOString(),
  };
}

const givenSummary = (summary: NonNullable<ReviewInput["moc_summary"]>): MocSummary => ({
  total: summary.total,
  completed: summary.completed,
  declined: summary.declined,
  open: summary.open,
  by_department: summary.by_department,
  ...(summary.by_status ? { by_status: summary.by_status } : {}),
  computed_at: summary.computed_at ?? null,
});

/**
 * Insight figures once pulled in stay with the summary while the year stays (a client never sends
 * them: they are the server's count); a review moved to another year drops them.
 */
function keepInsights(summary: MocSummary, current: ReviewRow, year: number): MocSummary {
  const { insights: _given, ...rest } = summary;
  const insights = year === current.year ? current.mocSummary.insights : null;
  return insights ? { ...rest, insights } : rest;
}

// ---------------------------------------------------------------------------------------------
// Documents

/** Documents for rows, every person they name loaded in one query whatever the number of rows. */
async function documents(rows: ReviewRow[], db: Executor = getDb()): Promise<ReviewDocument[]> {
  const ids = new Set<string>();
  for (const row of rows) {
    row.participants.forEach((id) => ids.add(id));
    row.actions.forEach((a) => ids.add(a.owner));
    if (row.createdBy) ids.add(row.createdBy);
    if (row.updatedBy) ids.add(row.updatedBy);
  }
  const people = ids.size
    ? await db
        .select()
        .from(users)
        .where(inArray(users.id, [...ids]))
    : [];
  const byId = new Map(people.map((p) => [p.id, toPublicUser(p)]));
  const person = (id: string | null) => (id ? (byId.get(id) ?? null) : null);
  return rows.map((row) => ({
    _id: row.id,
    year: row.year,
    title: row.title,
    sections: row.sections.map((s) => ({ heading: s.heading, body: s.body })),
    // A participant whose account was since deleted has nothing left to show.
    participants: row.participants.map(person).filter((p): p is PublicUser => p !== null),
    moc_summary: row.mocSummary,
    effectiveness: row.effectiveness,
    improvements: row.improvements,
    issues: row.issues,
    actions: row.actions.map((a) => ({
      description: a.description,
      owner: person(a.owner),
      due: a.due,
      status: a.status,
    })),
    createdBy: person(row.createdBy),
    updatedBy: person(row.updatedBy),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

// ---------------------------------------------------------------------------------------------
// Reading

export async function getReview(actor: Actor, id: string): Promise<ReviewDocument> {
  requireReviewReader(actor);
  const [row] = await getDb().select().from(yearEndReviews).where(eq(yearEndReviews.id, id));
  if (!row) throw new NotFound("No year-end review with this id");
  return (await documents([row]))[0]!;
}

/** Every review, newest year first: two queries whatever their number. */
export async function listReviews(actor: Actor): Promise<ReviewDocument[]> {
  requireReviewReader(actor);
  const rows = await getDb()
    .select()
    .from(yearEndReviews)
    .orderBy(desc(yearEndReviews.year), desc(yearEndReviews.updatedAt), desc(yearEndReviews.id));
  return documents(rows);
}

/** The reviews for GET /api/year-end-review as CSV, in the list's order (year, then latest edit). */
export function reviewsExportQuery(actor: Actor): SQL {
  requireReviewReader(actor);
  return sql`select r.year, r.title, cardinality(r.participants) as participants,
      jsonb_array_length(r.actions) as actions,
      (select count(*)::int from jsonb_array_elements(r.actions) a where a->>'status' <> 'done') as "openActions",
      u.name as "createdBy",
      ${sql.raw(iso("r.created_at"))} as "createdAt",
      ${sql.raw(iso("r.updated_at"))} as "updatedAt"
    from year_end_reviews r left join users u on u.id = r.created_by
    order by r.year desc, r.updated_at desc, r.id desc`;
}

/** One page of the same list, newest review first (keyset: app/models/shared/keyset.ts), in two queries. */
export async function listReviewsPage(actor: Actor, page: PageRequest): Promise<PageOf<ReviewDocument>> {
  requireReviewReader(actor);
  const rows = await getDb()
    .select({ row: yearEndReviews, at: sql<string>`${yearEndReviews.createdAt}::text` })
    .from(yearEndReviews)
    .where(afterKey(yearEndReviews.createdAt, yearEndReviews.id, page.after))
    .orderBy(desc(yearEndReviews.createdAt), desc(yearEndReviews.id))
    .limit(page.limit + 1);
  const { rows: taken, next } = cut(rows, page.limit, (r) => ({ values: [r.at], id: r.row.id }));
  return { rows: await documents(taken.map((r) => r.row)), next };
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * Everyone the review names must exist (400 with the path otherwise). People newly named must
 * also be active; someone already on the stored review stays allowed after being deactivated, so
 * an old review can still be edited.
 */
async function checkPeople(db: Executor, input: ReviewInput, alreadyNamed: ReadonlySet<string>): Promise<void> {
  const refs = [
    ...input.participants.map((id, i) => ({ path: `participants.${i}`, id })),
    ...input.actions.map((a, i) => ({ path: `actions.${i}.owner`, id: a.owner })),
  ];
  if (refs.length === 0) return;
  const rows = await db
    .select({ id: users.id, active: users.active })
    .from(users)
    .where(inArray(users.id, [...new Set(refs.map((r) => r.id))]));
  const active = new Map(rows.map((r) => [r.id, r.active]));
  const issues: Issue[] = [];
  for (const ref of refs) {
    if (!active.has(ref.id)) issues.push({ path: ref.path, message: "No user with this id" });
    else if (!active.get(ref.id) && !alreadyNamed.has(ref.id))
      issues.push({ path: ref.path, message: "This user is deactivated" });
  }
  if (issues.length) throw new Invalid("Some people named in the review do not exist or are deactivated", issues);
}

/** The stored columns for an input, rich text sanitised. */
function columns(input: ReviewInput) {
  return {
    year: input.year,
    title: input.title,
    sections: input.sections.map((s) => ({ heading: s.heading, body: sanitizeRichText(s.body) })),
    participants: input.participants,
    effectiveness: sanitizeRichText(input.effectiveness),
    improvements: sanitizeRichText(input.improvements),
    issues: sanitizeRichText(input.issues),
    actions: input.actions.map((a) => ({
      description: a.description,
      owner: a.owner,
      due: a.due,
      status: a.status,
    })),
  };
}

/** POST /api/year-end-review and /reviews/new. Without `moc_summary` the year's MOCs are counted. */
export async function createReview(actor: PublicUser, input: ReviewInput): Promise<ReviewDocument> {
  requireReviewWriter(actor);
  return getDb().transaction(async (tx) => {
    await checkPeople(tx, input, new Set());
    const mocSummary = input.moc_summary ? givenSummary(input.moc_summary) : await countYearMocs(input.year, tx);
    const [row] = await tx
      .insert(yearEndReviews)
      .values({ ...columns(input), mocSummary, createdBy: actor._id, updatedBy: actor._id })
      .returning();
    await appendAudit(tx, {
      kind: "review",
      recordId: row!.id,
      actorId: actor._id,
      action: `Created the ${input.year} review`,
    });
    return (await documents([row!], tx))[0]!;
  });
}

/** The stored review as an input, for a partial update to merge into. */
const storedInput = (row: ReviewRow): ReviewInput => ({
  year: row.year,
  title: row.title,
  sections: row.sections,
  participants: row.participants,
  effectiveness: row.effectiveness,
  improvements: row.improvements,
  issues: row.issues,
  actions: row.actions,
});

/**
 * PUT /api/year-end-review and the edit page: the fields given replace the stored ones, the
 * others are kept (docs/api-contract.md). The MOC summary is a snapshot: given, it is stored as
 * given; null, the year's MOCs are counted again; left out, the stored one stays while the year
 * does (unless `keepSummary: false`, the edit page's "count again") and a new year is counted.
 */
export async function updateReview(
  actor: PublicUser,
  id: string,
  update: Partial<ReviewInput>,
  options: { keepSummary?: boolean } = {},
): Promise<ReviewDocument> {
  requireReviewWriter(actor);
  return getDb().transaction(async (tx) => {
    const [current] = await tx.select().from(yearEndReviews).where(eq(yearEndReviews.id, id)).for("update");
    if (!current) throw new NotFound("No year-end review with this id");
    const defined = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
    const input: ReviewInput = { ...storedInput(current), ...defined };
    await checkPeople(tx, input, new Set([...current.participants, ...current.actions.map((a) => a.owner)]));
    const counted = input.moc_summary
      ? givenSummary(input.moc_summary)
      : input.moc_summary === undefined && (options.keepSummary ?? true) && input.year === current.year
        ? current.mocSummary
        : await countYearMocs(input.year, tx);
    const mocSummary = keepInsights(counted, current, input.year);
    const [row] = await tx
      .update(yearEndReviews)
      .set({ ...columns(input), mocSummary, updatedBy: actor._id, updatedAt: new Date() })
      .where(eq(yearEndReviews.id, id))
      .returning();
    await appendAudit(tx, { kind: "review", recordId: id, actorId: actor._id, action: "Edited" });
    return (await documents([row!], tx))[0]!;
  });
}

/** Replaces a review's stored summary with `summarize`'s, under the review's row lock. */
async function resummarize(
  actor: PublicUser,
  id: string,
  action: string,
  summarize: (current: ReviewRow, tx: Executor) => Promise<MocSummary>,
): Promise<ReviewDocument> {
  requireReviewWriter(actor);
  return getDb().transaction(async (tx) => {
    const [current] = await tx.select().from(yearEndReviews).where(eq(yearEndReviews.id, id)).for("update");
    if (!current) throw new NotFound("No year-end review with this id");
    const [row] = await tx
      .update(yearEndReviews)
      .set({ mocSummary: await summarize(current, tx), updatedBy: actor._id, updatedAt: new Date() })
      .where(eq(yearEndReviews.id, id))
      .returning();
    await appendAudit(tx, { kind: "review", recordId: id, actorId: actor._id, action });
    return (await documents([row!], tx))[0]!;
  });
}

/** Counts the review year's MOCs again (the "Recount" button on the review page). */
export const recountReviewSummary = (actor: PublicUser, id: string) =>
  resummarize(actor, id, "Recounted the MOC summary", async (current, tx) =>
    keepInsights(await countYearMocs(current.year, tx), current, current.year),
  );

/**
 * Pulls the insight figures for the review's UTC calendar year into its summary (the review page's
 * "Pull in the insight figures" button), as a snapshot like the MOC counts (docs/decisions/011, 017).
 */
export const pullReviewInsights = (actor: PublicUser, id: string) =>
  resummarize(actor, id, "Pulled in the insight figures", async (current, tx) => ({
    ...current.mocSummary,
    insights: await computeInsights(
      { from: `${current.year}-01-01`, to: `${current.year}-12-31`, department: null },
      { db: tx },
    ),
  }));

/** The year-end reviews as CSV. */
export function reviewsCsv(actor: Actor) {
  type Row = {
    year: number;
    title: string;
    participants: number;
    actions: number;
    openActions: number;
    createdBy: string | null;
    createdAt: string;
    updatedAt: string;
  };
  return csvStream<Row>(
    ["Year", "Title", "Participants", "Actions", "Open actions", "Created by", "Created", "Updated"],
    reviewsExportQuery(actor),
    (r) => [r.year, r.title, r.participants, r.actions, r.openActions, r.createdBy, r.createdAt, r.updatedAt],
    actor._id,
  );
}
