/**
 * The engine is not MOC-shaped (docs/decisions/046-workflow-engine.md): a third kind of record, a
 * work permit, is built here alone, in the test suite, on `defineWorkflow`
 * (app/models/workflow/engine.server.ts) and the record-kind registry's shape
 * (app/models/record-kind/record-kind.ts). Its own table, created here; two steps (the requester
 * submits it, an independent issuer issues it); its own append-only audit log with the keyed hash
 * chain the engine links. Driven through an `apiRoute`: the allowed actor moves it, a refused one
 * gets 403 with the step's refusal, a closed step is 409, concurrent duplicates move it once, and
 * the chain verifies. A fourth kind, a checklist of three slots each signed by its officer, is
 * moved by the engine's multi-slot move (`slotRunner`, as a PCR's signatures are): several slots
 * in one move, all or nothing, one trail entry per slot in the order asked, and concurrent
 * duplicates move it once.
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
import { Invalid } from "~/utils/errors";
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
const verifyChain = (permitId: string) => verifyLog({ log: LOG, column: "permit_id", kind: "test-permit" }, permitId);

/** Recomputes a record's chain in a log of `moc_logs`' columns, as the audit verification does. */
async function verifyLog(
  { log, column, kind }: { log: string; column: string; kind: string },
  recordId: string,
): Promise<{ length: number; broken: number[] }> {
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
    from ${t(log)} where ${t(column)} = ${recordId} order by seq`);
  const broken: number[] = [];
  let previous: string | null = null;
  for (const [index, row] of rows.entries()) {
    const key = keyById(row.key_id);
    const content = entryContent({
      kind,
      recordId,
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

// ---------------------------------------------------------------------------------------------
// A kind of slots: a checklist, signed slot by slot, several at once

const LIST = `test_checklists_${randomUUID().slice(0, 8)}`;
const LIST_LOG = `${LIST}_log`;
const CHECKS = ["deck", "engine", "bridge"] as const;
type Check = (typeof CHECKS)[number];

type ChecklistAccess = { holders: Record<Check, string> };
type Checklist = ChecklistAccess & {
  id: string;
  status: string;
  signed: Partial<Record<Check, string>>;
  notes: Partial<Record<Check, string>>;
};
type ChecklistKind = {
  access: ChecklistAccess;
  condition: `${Check}Signed`;
  state: { status: string; completed: boolean; isDeleted: boolean } & Record<`${Check}Signed`, boolean>;
  role: Check;
  status: "open" | "closed";
  check: never;
  context: { actor: PublicUser; onBehalfOf: PublicUser | null; list: Checklist; now: Date };
  outcome: { to?: string; action: string; meaning?: string; comment?: string | null };
};

const noForm = z.object({});

/** A check: its officer signs it while the list is open, once. */
const checkStep = (check: Check): StepDef<ChecklistKind, typeof noForm> => ({
  path: check,
  part: `the ${check} check`,
  who: {
    may: (actor, list) => list.holders[check] === actor._id,
    sql: (actor) => sql`${t(`c.${check}_id`)} = ${actor._id}`,
    refusal: `Only the ${check} officer can sign the ${check} check`,
  },
  signs: () => `${check} officer`,
  open: { statuses: ["open"], requires: [[`${check}Signed`, false, `The ${check} check is already signed`]] },
  owner: { roles: [check] },
  form: noForm,
  bodyKey: null,
  async apply({ actor, list }) {
    list.signed[check] = actor._id;
    return { action: `Signed the ${check} check`, meaning: "checked" };
  },
});

const CHECK_STEPS = { deck: checkStep("deck"), engine: checkStep("engine"), bridge: checkStep("bridge") };

const CHECKLISTS = defineWorkflow<ChecklistKind, typeof CHECK_STEPS>(
  {
    kind: "test-checklist",
    noun: "checklist",
    alias: "c",
    roles: {
      deck: { holder: (list) => list.holders.deck, column: sql`c.deck_id` },
      engine: { holder: (list) => list.holders.engine, column: sql`c.engine_id` },
      bridge: { holder: (list) => list.holders.bridge, column: sql`c.bridge_id` },
    },
    conditions: {
      deckSigned: sql`c.signed ? 'deck'`,
      engineSigned: sql`c.signed ? 'engine'`,
      bridgeSigned: sql`c.signed ? 'bridge'`,
    },
    restingSql: sql`c.status = 'closed'`,
    statusLabel: (status) => status,
  },
  CHECKS,
  CHECK_STEPS,
);

/** The checklist's load and write: its row locked with its log's head; then the row and its entries in one statement. */
const signChecklist = CHECKLISTS.slotRunner({
  async load(tx, id) {
    const [row] = await tx.execute<{
      id: string;
      status: string;
      deck_id: string;
      engine_id: string;
      bridge_id: string;
      signed: Checklist["signed"];
      notes: Checklist["notes"];
      head: string | null;
    }>(sql`select c.*, (select l.seq || ' ' || l.hash from ${t(LIST_LOG)} l where l.list_id = c.id
        order by l.seq desc limit 1) as head
      from ${t(LIST)} c where c.id = ${id} for update`);
    if (!row) return null;
    return {
      record: {
        id: row.id,
        status: row.status,
        holders: { deck: row.deck_id, engine: row.engine_id, bridge: row.bridge_id },
        signed: row.signed,
        notes: row.notes,
      },
      heads: { log: parseHead(row.head), signature: parseHead(null) },
    };
  },
  state: (list) => ({
    status: list.status,
    completed: false,
    isDeleted: false,
    deckSigned: Boolean(list.signed.deck),
    engineSigned: Boolean(list.signed.engine),
    bridgeSigned: Boolean(list.signed.bridge),
  }),
  context: ({ actor, onBehalfOf, record, now }) => ({ actor, onBehalfOf, list: record, now }),
  note({ step, note, list }) {
    list.notes[step as Check] = note;
    return { action: `Noted on the ${step} check`, comment: note };
  },
  settle: (list, _taken, status) =>
    status === "open" && CHECKS.every((check) => list.signed[check])
      ? { to: "closed", action: "Closed the checklist" }
      : null,
  async commit(tx, { record, from, to, trail, signatures }) {
    const entries = trail.map(({ entry, link }) => ({
      seq: link.seq,
      user_id: entry.userId,
      on_behalf_of: entry.onBehalfOf,
      action: entry.action,
      from_status: entry.fromStatus,
      to_status: entry.toStatus,
      comment: entry.comment,
      at: entry.at.toISOString(),
      prev_hash: link.prevHash,
      hash: link.hash,
      key_id: link.keyId,
    }));
    const [moved] = await tx.execute<{ id: string }>(sql`with moved as (
        update ${t(LIST)} set status = ${to}, signed = ${JSON.stringify(record.signed)}::jsonb,
          notes = ${JSON.stringify(record.notes)}::jsonb
        where id = ${record.id} and status = ${from} returning id),
      logged as (
        insert into ${t(LIST_LOG)} (list_id, seq, user_id, on_behalf_of, action, from_status, to_status, comment, at,
          prev_hash, hash, key_id)
        select moved.id, e.seq, e.user_id, e.on_behalf_of, e.action, e.from_status, e.to_status, e.comment, e.at,
          e.prev_hash, e.hash, e.key_id
        from moved, jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) as e(seq integer, user_id uuid,
          on_behalf_of uuid, action text, from_status text, to_status text, comment text, at timestamptz,
          prev_hash text, hash text, key_id text)
        order by e.seq)
      select id from moved`);
    // The kind writes its signatures' manifestations; this one answers their roles, in order.
    return moved ? { id: moved.id, status: to, signatures: signatures.map((s) => s.role) } : null;
  },
});

type CheckAsk = { check: string; sign?: true; note?: string };

/** Its API: the slots asked in order, each to sign, to note on, or both; an unknown check is 400 where it is met. */
const checklistRoute = apiRoute({
  POST: async ({ request }) => {
    const actor = people.get(request.headers.get("x-actor") ?? "")!;
    const body = (await request.json()) as { list_id: string; slots: CheckAsk[] };
    return ok(
      await signChecklist(actor, body.list_id, function* () {
        for (const [index, slot] of body.slots.entries()) {
          const check = CHECKS.find((c) => c === slot.check);
          if (!check) throw new Invalid("No such check", [{ path: `slots.${index}.check`, message: "No such check" }]);
          yield { step: check, ...(slot.sign && { take: {} }), ...(slot.note !== undefined && { note: slot.note }) };
        }
      }),
    );
  },
});

async function postChecks(actor: Actor, listId: string, slots: CheckAsk[]) {
  const request = new Request("http://test/api/checklists", {
    method: "POST",
    headers: { "content-type": "application/json", "x-actor": actor._id },
    body: JSON.stringify({ list_id: listId, slots }),
  });
  const response = await checklistRoute.action({ request, params: {}, context: {} });
  return { status: response.status, body: (await response.json()) as { message?: string; data?: unknown } };
}

describe("a kind of slots, moved several at once", () => {
  // The chief officer holds the deck and engine checks; the bridge officer the bridge's.
  let chief: PublicUser;
  let bridgeOfficer: PublicUser;

  beforeAll(async () => {
    const db = getDb();
    await db.execute(sql`create table ${t(LIST)} (id uuid primary key default gen_random_uuid(),
      status text not null default 'open', deck_id uuid not null, engine_id uuid not null, bridge_id uuid not null,
      signed jsonb not null default '{}', notes jsonb not null default '{}')`);
    await db.execute(sql`create table ${t(LIST_LOG)} (list_id uuid not null references ${t(LIST)}(id),
      seq integer not null, user_id uuid, on_behalf_of uuid, action text not null, from_status text, to_status text,
      comment text, at timestamptz not null, prev_hash text, hash text not null, key_id text not null,
      primary key (list_id, seq))`);
    [chief, bridgeOfficer] = await Promise.all([makeUser(), makeUser()]);
    for (const person of [chief, bridgeOfficer]) people.set(person._id, person);
  });

  afterAll(async () => {
    await getDb().execute(sql`drop table if exists ${t(LIST_LOG)}; drop table if exists ${t(LIST)}`);
  });

  async function newChecklist(): Promise<string> {
    const [row] = await getDb().execute<{ id: string }>(sql`insert into ${t(LIST)} (deck_id, engine_id, bridge_id)
      values (${chief._id}, ${chief._id}, ${bridgeOfficer._id}) returning id`);
    return row!.id;
  }

  const stored = async (id: string) =>
    (
      await getDb().execute<{ status: string; signed: object; notes: object }>(
        sql`select status, signed, notes from ${t(LIST)} where id = ${id}`,
      )
    )[0]!;

  const trail = async (id: string) => [
    ...(await getDb().execute<{ seq: number; action: string; from_status: string | null; to_status: string | null }>(
      sql`select seq, action, from_status, to_status from ${t(LIST_LOG)} where list_id = ${id} order by seq`,
    )),
  ];

  const verify = (id: string) => verifyLog({ log: LIST_LOG, column: "list_id", kind: "test-checklist" }, id);

  it("takes every slot asked in one move: one trail entry per slot in the order asked, then the notes, then the settling", async () => {
    const id = await newChecklist();
    expect(
      await postChecks(chief, id, [
        { check: "engine", sign: true },
        { check: "deck", sign: true },
      ]),
    ).toEqual({
      status: 200,
      body: { status: 200, data: { id, status: "open", signatures: ["engine officer", "deck officer"] } },
    });
    const last = await postChecks(bridgeOfficer, id, [{ check: "bridge", sign: true, note: "Charts corrected" }]);
    expect(last.body.data).toEqual({ id, status: "closed", signatures: ["bridge officer"] });
    // A slot's entry moves no status; the settling does, once.
    expect(await trail(id)).toEqual([
      { seq: 1, action: "Signed the engine check", from_status: null, to_status: null },
      { seq: 2, action: "Signed the deck check", from_status: null, to_status: null },
      { seq: 3, action: "Signed the bridge check", from_status: null, to_status: null },
      { seq: 4, action: "Noted on the bridge check", from_status: null, to_status: null },
      { seq: 5, action: "Closed the checklist", from_status: "open", to_status: "closed" },
    ]);
    expect(await verify(id)).toEqual({ length: 5, broken: [] });
    // A note is taken at any status; a take is not.
    expect((await postChecks(chief, id, [{ check: "deck", note: "Moorings doubled" }])).status).toBe(200);
    expect(await postChecks(chief, id, [{ check: "deck", sign: true }])).toEqual({
      status: 409,
      body: { status: 409, message: "This checklist is at closed, so the deck check cannot be submitted" },
    });
    expect(await stored(id)).toEqual({
      status: "closed",
      signed: { deck: chief._id, engine: chief._id, bridge: bridgeOfficer._id },
      notes: { deck: "Moorings doubled", bridge: "Charts corrected" },
    });
    expect(await verify(id)).toEqual({ length: 6, broken: [] });
  });

  it("all or nothing: one refused slot refuses the whole move and writes nothing", async () => {
    const id = await newChecklist();
    const before = await stored(id);
    // The deck check is the chief's, the bridge check is not: 403 with the bridge check's refusal.
    expect(
      await postChecks(chief, id, [
        { check: "deck", sign: true },
        { check: "bridge", sign: true },
      ]),
    ).toEqual({
      status: 403,
      body: { status: 403, message: "Only the bridge officer can sign the bridge check" },
    });
    // A slot asked twice: the second finds it signed by the first (409).
    expect(
      await postChecks(chief, id, [
        { check: "deck", sign: true },
        { check: "deck", sign: true },
      ]),
    ).toEqual({
      status: 409,
      body: { status: 409, message: "The deck check is already signed" },
    });
    // A malformed slot after a good one: 400, where it is met.
    const malformed = await postChecks(chief, id, [{ check: "deck", sign: true, note: "x" }, { check: "galley" }]);
    expect(malformed.status).toBe(400);
    // A note on someone else's slot refuses the take before it too.
    const noted = await postChecks(bridgeOfficer, id, [
      { check: "bridge", sign: true },
      { check: "engine", note: "x" },
    ]);
    expect(noted.body.message).toBe("Only the engine officer can sign the engine check");
    expect(await stored(id)).toEqual(before);
    expect(await trail(id)).toEqual([]);
    expect((await postChecks(stranger, randomUUID(), [{ check: "deck", sign: true }])).status).toBe(404);
  });

  it("concurrent duplicates move it once; the others are 409", async () => {
    const id = await newChecklist();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        postChecks(chief, id, [
          { check: "deck", sign: true },
          { check: "engine", sign: true },
        ]),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.message)).toEqual(
      Array(4).fill("The deck check is already signed"),
    );
    expect(await stored(id)).toMatchObject({ status: "open", signed: { deck: chief._id, engine: chief._id } });
    expect(await verify(id)).toEqual({ length: 2, broken: [] });
  });
});
