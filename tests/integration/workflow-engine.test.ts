/**
 * The engine is not MOC-shaped (docs/decisions/046-workflow-engine.md): a third kind of record, a
 * work permit, is built here alone, in the test suite, on `defineWorkflow`
 * (app/models/workflow/engine.server.ts) and the record-kind registry's shape
 * (app/models/record-kind/record-kind.ts). Its own table, created here; two steps (the requester
 * submits it, an independent issuer issues it); its own append-only audit log with the keyed hash
 * chain the engine links. Driven through an `apiRoute`: the allowed actor moves it, a refused one
 * gets 403 with the step's refusal, a closed step is 409, concurrent duplicates move it once, and
 * the chain verifies.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryContent, keyById, keyedHash, parseHead } from "~/models/audit/audit-chain.server";
import type { Actor } from "~/models/authz/authz.server";
import { defineRecordKind } from "~/models/record-kind/record-kind";
import type { PublicUser } from "~/models/people/user.server";
import { defineWorkflow, type StepDef } from "~/models/workflow/engine.server";
import { getDb, type Transaction } from "~/utils/db.server";
import { apiRoute, ok } from "~/utils/http.server";
import { makeUser } from "../helpers/factories";

// ---------------------------------------------------------------------------------------------
// The kind: its table, its audit log, its types

const TABLE = `test_permits_${randomUUID().slice(0, 8)}`;
const LOG = `${TABLE}_log`;

type PermitAccess = { requesterId: string; issuerId: string };
type PermitKind = {
  access: PermitAccess;
  condition: "hasWork";
  state: { status: string; completed: boolean; isDeleted: boolean; hasWork: boolean };
  role: "requester" | "issuer";
  status: "draft" | "requested" | "issued";
  check: "issue";
  context: { tx: Transaction; actor: PublicUser; permit: PermitAccess & { id: string }; now: Date };
  outcome: { to: "draft" | "requested" | "issued"; action: string; comment?: string | null; work?: string };
};

const step = <Form extends z.ZodType>(definition: StepDef<PermitKind, Form>) => definition;
const t = (name: string) => sql.raw(name);

const PERMIT_STEPS = {
  request: step({
    path: "request",
    part: "the permit request",
    who: {
      may: (actor, permit) => permit.requesterId === actor._id,
      sql: (actor) => sql`p.requester_id = ${actor._id}`,
      refusal: "Only the requester can submit the permit request",
    },
    open: { statuses: ["draft"] },
    owner: { roles: ["requester"] },
    form: z.object({ work: z.string().min(1) }),
    bodyKey: null,
    async apply({ tx, permit, input }) {
      await tx.execute(sql`update ${t(TABLE)} set work = ${input.work} where id = ${permit.id}`);
      return { to: "requested", action: "Requested the permit", work: input.work };
    },
  }),
  issue: step({
    path: "issue",
    part: "the permit's issue",
    who: {
      independent: "issue",
      may: (actor, permit) => permit.issuerId === actor._id && actor._id !== permit.requesterId,
      sql: (actor) => sql`p.issuer_id = ${actor._id} and p.requester_id <> ${actor._id}`,
      refusal: "Only the named issuer can issue the permit",
    },
    open: { statuses: ["requested"], requires: [["hasWork", true, "The permit names no work"]] },
    owner: { roles: ["issuer"] },
    form: z.object({ comment: z.string().nullable() }),
    bodyKey: null,
    async apply({ input }) {
      return { to: "issued", action: "Issued the permit", comment: input.comment };
    },
  }),
};

const PERMITS = defineWorkflow<PermitKind, typeof PERMIT_STEPS>(
  {
    kind: "test-permit",
    noun: "permit",
    alias: "p",
    roles: {
      requester: { holder: (p) => p.requesterId, column: sql`p.requester_id` },
      issuer: { holder: (p) => p.issuerId, column: sql`p.issuer_id` },
    },
    conditions: { hasWork: sql`p.work is not null` },
    restingSql: sql`p.is_deleted`,
    independence: {
      dependenceOf: (userId, permit) => (userId === permit.requesterId ? "the requester" : null),
      independentSql: (userId) => sql`p.requester_id <> ${userId}`,
      defaultCheck: "issue",
    },
    statusLabel: (status) => status,
  },
  ["request", "issue"],
  PERMIT_STEPS,
);

/** The permit's move: its row only from the status the step started from, and its log entry, in one statement. */
const runPermitStep = PERMITS.runner({
  async load(tx, id) {
    const [row] = await tx.execute<{
      id: string;
      status: string;
      completed: boolean;
      is_deleted: boolean;
      requester_id: string;
      issuer_id: string;
      work: string | null;
      head: string | null;
    }>(sql`select p.*, (select l.seq || ' ' || l.hash from ${t(LOG)} l where l.permit_id = p.id
        order by l.seq desc limit 1) as head
      from ${t(TABLE)} p where p.id = ${id} for update`);
    if (!row) return null;
    return {
      record: { id: row.id, requesterId: row.requester_id, issuerId: row.issuer_id },
      state: { status: row.status, completed: row.completed, isDeleted: row.is_deleted, hasWork: row.work !== null },
      heads: { log: parseHead(row.head), signature: parseHead(null) },
    };
  },
  context: ({ tx, actor, record, now }) => ({ tx, actor, permit: record, now }),
  async commit(tx, { record, outcome, log, logLink }) {
    const [moved] = await tx.execute<{ id: string }>(sql`with moved as (
        update ${t(TABLE)} set status = ${outcome.to} where id = ${record.id} and status = ${log.fromStatus} returning id)
      insert into ${t(LOG)} (permit_id, seq, user_id, on_behalf_of, action, from_status, to_status, comment, at,
        prev_hash, hash, key_id)
      select id, ${logLink.seq}::integer, ${log.userId}::uuid, ${log.onBehalfOf}::uuid, ${log.action}::text,
        ${log.fromStatus}::text, ${log.toStatus}::text, ${log.comment}::text, ${log.at.toISOString()}::timestamptz,
        ${logLink.prevHash}::text, ${logLink.hash}::text, ${logLink.keyId}::text from moved
      returning permit_id as id`);
    return moved ? { id: moved.id, status: outcome.to } : null;
  },
});

/** The kind as the registry holds it: its audit chain is its own table, nothing else. */
const PERMIT_KIND = defineRecordKind({
  name: "test-permit",
  label: "permit",
  page: (id) => `/permits/${id}`,
  table: { name: TABLE, alias: "p" },
  audit: { chain: "test-permit", log: { table: LOG, recordColumn: "permit_id" }, note: null, stateProblems: null },
  workflow: PERMITS,
});

// ---------------------------------------------------------------------------------------------
// Its API: six lines, as a MOC step's

const people = new Map<string, PublicUser>();
const route = apiRoute({
  POST: async ({ request, params }) => {
    const actor = people.get(request.headers.get("x-actor") ?? "")!;
    const body = (await request.json()) as { permit_id: string };
    const name = params.step as keyof typeof PERMIT_STEPS;
    return ok(await runPermitStep(name, actor, body.permit_id, PERMIT_STEPS[name].form.parse(body)));
  },
});

async function post(step: string, actor: Actor, body: Record<string, unknown>) {
  const request = new Request(`http://test/api/permits/${step}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-actor": actor._id },
    body: JSON.stringify(body),
  });
  const response = await route.action({ request, params: { step }, context: {} });
  return { status: response.status, body: (await response.json()) as { message?: string; data?: unknown } };
}

let requester: PublicUser;
let issuer: PublicUser;
let stranger: PublicUser;

async function newPermit(): Promise<string> {
  const [row] = await getDb().execute<{ id: string }>(
    sql`insert into ${t(TABLE)} (requester_id, issuer_id) values (${requester._id}, ${issuer._id}) returning id`,
  );
  return row!.id;
}

beforeAll(async () => {
  const db = getDb();
  await db.execute(sql`create table ${t(TABLE)} (id uuid primary key default gen_random_uuid(),
    status text not null default 'draft', completed boolean not null default false,
    is_deleted boolean not null default false, requester_id uuid not null, issuer_id uuid not null, work text)`);
  await db.execute(sql`create table ${t(LOG)} (permit_id uuid not null references ${t(TABLE)}(id), seq integer not null,
    user_id uuid, on_behalf_of uuid, action text not null, from_status text, to_status text, comment text,
    at timestamptz not null, prev_hash text, hash text not null, key_id text not null, primary key (permit_id, seq))`);
  // Append-only, as the app's trails are.
  await db.execute(sql`create function ${t(`${LOG}_frozen`)}() returns trigger language plpgsql as $$
    begin raise exception 'the permit log is append-only'; end $$`);
  await db.execute(sql`create trigger ${t(`${LOG}_frozen`)} before update or delete on ${t(LOG)}
    for each row execute function ${t(`${LOG}_frozen`)}()`);
  [requester, issuer, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  for (const person of [requester, issuer, stranger]) people.set(person._id, person);
});

afterAll(async () => {
  await getDb().execute(sql`drop table if exists ${t(LOG)}; drop table if exists ${t(TABLE)};
    drop function if exists ${t(`${LOG}_frozen`)}()`);
});

/** Recomputes the permit's chain with AUDIT_KEY: each entry's hash covers its content and the previous hash. */
async function verifyChain(permitId: string): Promise<{ length: number; broken: number[] }> {
  const rows = await getDb().execute<{
    seq: number;
    user_id: string | null;
    on_behalf_of: string | null;
    action: string;
    from_status: string | null;
    to_status: string | null;
    comment: string | null;
    at: string;
    prev_hash: string | null;
    hash: string;
    key_id: string;
  }>(sql`select seq, user_id, on_behalf_of, action, from_status, to_status, comment, prev_hash, hash, key_id,
      to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
    from ${t(LOG)} where permit_id = ${permitId} order by seq`);
  const broken: number[] = [];
  let previous: string | null = null;
  for (const [index, row] of rows.entries()) {
    const key = keyById(row.key_id);
    const content = entryContent({
      kind: "test-permit",
      recordId: permitId,
      seq: row.seq,
      actorId: row.user_id,
      action: row.action,
      from: row.from_status,
      to: row.to_status,
      comment: row.comment,
      at: row.at,
      prevHash: previous,
      onBehalfOf: row.on_behalf_of,
    });
    if (row.seq !== index + 1 || row.prev_hash !== previous || !key || keyedHash(key, content) !== row.hash) {
      broken.push(row.seq);
    }
    previous = row.hash;
  }
  return { length: rows.length, broken };
}

// ---------------------------------------------------------------------------------------------

describe("a third record kind on the engine", () => {
  it("the allowed actor moves it, step by step, and the chain verifies", async () => {
    const id = await newPermit();
    expect(await post("request", requester, { permit_id: id, work: "Hot work on deck 3" })).toEqual({
      status: 200,
      body: { status: 200, data: { id, status: "requested" } },
    });
    expect((await post("issue", issuer, { permit_id: id, comment: "Fire watch posted" })).status).toBe(200);
    expect(await verifyChain(id)).toEqual({ length: 2, broken: [] });
  });

  it("a refused actor gets 403 with the step's refusal, and nothing moves", async () => {
    const id = await newPermit();
    expect(await post("request", stranger, { permit_id: id, work: "x" })).toEqual({
      status: 403,
      body: { status: 403, message: "Only the requester can submit the permit request" },
    });
    await post("request", requester, { permit_id: id, work: "Enclosed space entry" });
    expect((await post("issue", requester, { permit_id: id, comment: null })).body.message).toBe(
      "Only the named issuer can issue the permit",
    );
    expect(await verifyChain(id)).toEqual({ length: 1, broken: [] });
  });

  it("a closed step is 409, naming the status", async () => {
    const id = await newPermit();
    expect(await post("issue", issuer, { permit_id: id, comment: null })).toEqual({
      status: 409,
      body: { status: 409, message: "This permit is at draft, so the permit's issue cannot be submitted" },
    });
    expect((await post("request", stranger, { permit_id: randomUUID(), work: "x" })).status).toBe(404);
  });

  it("concurrent duplicates move it once; the others are 409", async () => {
    const id = await newPermit();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post("request", requester, { permit_id: id, work: "Working aloft" })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await verifyChain(id)).toEqual({ length: 1, broken: [] });
  });

  it("its log is append-only", async () => {
    const id = await newPermit();
    await post("request", requester, { permit_id: id, work: "Diving" });
    await expect(getDb().execute(sql`update ${t(LOG)} set action = 'x' where permit_id = ${id}`)).rejects.toThrow();
  });

  it("an entry rewritten behind the trigger's back (a superuser's edit) breaks the chain from there", async () => {
    const id = await newPermit();
    await post("request", requester, { permit_id: id, work: "Hot work" });
    await post("issue", issuer, { permit_id: id, comment: null });
    expect(await verifyChain(id)).toEqual({ length: 2, broken: [] });
    await getDb().transaction(async (tx) => {
      await tx.execute(sql`alter table ${t(LOG)} disable trigger ${t(`${LOG}_frozen`)}`);
      await tx.execute(sql`update ${t(LOG)} set action = 'Issued without a check' where permit_id = ${id} and seq = 1`);
      await tx.execute(sql`alter table ${t(LOG)} enable trigger ${t(`${LOG}_frozen`)}`);
    });
    expect(await verifyChain(id)).toEqual({ length: 2, broken: [1] });
  });

  it("its rules read as SQL over its own alias, and the registry's shape holds it", async () => {
    const id = await newPermit();
    const waiting = () =>
      getDb().execute<{ step: string | null; owner: string | null; mine: string | null }>(sql`
        select ${PERMITS.waitingStepSql} as step, ${PERMITS.ownerSql} as owner, ${PERMITS.pendingStepSql(issuer)} as mine
        from ${t(TABLE)} p where p.id = ${id}`);
    expect(await waiting()).toEqual([{ step: "request", owner: requester.name, mine: null }]);
    await post("request", requester, { permit_id: id, work: "Painting" });
    expect(await waiting()).toEqual([{ step: "issue", owner: issuer.name, mine: "issue" }]);
    expect(PERMITS.stepWaiting({ status: "requested", completed: false, isDeleted: false, hasWork: true })).toBe(
      "issue",
    );
    expect(PERMITS.refusalFor("issue", requester, { requesterId: requester._id, issuerId: requester._id })).toBe(
      "Only the named issuer can issue the permit",
    );
    expect(PERMIT_KIND.workflow!.kind).toBe(PERMIT_KIND.audit.chain);
  });
});
