/**
 * The record-kind registry (app/models/record-kind/record-kind.ts, the app's kinds in
 * app/models/kinds/, docs/decisions/060-record-kinds.md) against the database checks and modules
 * its entries name: for every registered kind, each place it claims must know it, and every kind
 * those places know must be registered; each kind's named states hold their SQL twins to their
 * predicates over real records. A kind added to one without the other fails here, naming the place.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { chainNames, signatureChain } from "~/models/audit/audit-chain.server";
import { RECORD_KINDS } from "~/models/kinds/record-kinds.server";
import { recordKinds, type RecordKind } from "~/models/record-kind/record-kind";
import { RECORD_REF_KINDS } from "~/models/records/record-refs.constants";
import { getDb } from "~/utils/db.server";
import { API } from "~/web/openapi.server";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk } from "../helpers/pcr";

/** A check constraint's definition, as PostgreSQL prints it. */
async function checkOf(name: string): Promise<string> {
  const [row] = await getDb().execute<{ def: string }>(
    sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = ${name}`,
  );
  if (!row) throw new Error(`no constraint ${name}`);
  return row.def;
}

/** The quoted values a check's `in (...)` (`= ANY (ARRAY[...])`) allows. */
const allowed = (def: string) => [...def.matchAll(/'([^']+)'::text/g)].map((m) => m[1]!);

async function columnsOf(table: string): Promise<string[]> {
  const rows = await getDb().execute<{ column_name: string }>(
    sql`select column_name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`,
  );
  return rows.map((r) => r.column_name);
}

const sharesTrail = (kind: RecordKind) => kind.audit.log.table === "audit_entries";

describe("every registered kind is known where its entry says", () => {
  it("the app's kinds are the registered ones, each under its own name", () => {
    expect(recordKinds().map((k) => k.name)).toEqual(RECORD_KINDS.map((k) => k.name));
    expect(new Set(recordKinds().map((k) => k.name)).size).toBe(RECORD_KINDS.length);
  });

  for (const kind of RECORD_KINDS as readonly RecordKind[]) {
    it(`${kind.name}: its trail is a chain, and the database accepts its entries`, async () => {
      expect(chainNames()).toContain(kind.audit.chain);
      const log = kind.audit.log;
      if ("recordColumn" in log) {
        expect(await columnsOf(log.table)).toEqual(
          expect.arrayContaining(["id", log.recordColumn, "seq", "prev_hash", "hash", "key_id", "action", "at"]),
        );
      } else {
        expect(allowed(await checkOf("audit_entries_kind_check"))).toContain(kind.audit.chain);
      }
    });

    it(`${kind.name}: its table, signatures, attachments, chat room and search entries exist`, async () => {
      if (kind.table) expect(await columnsOf(kind.table.name)).toContain("id");
      if (kind.signatures) {
        expect(allowed(await checkOf("signature_manifestations_kind_check"))).toContain(kind.signatures);
        expect(chainNames()).toContain(signatureChain(kind.signatures));
      }
      if (kind.attachments) {
        expect(await columnsOf("attachments")).toContain(kind.attachments.column);
        expect(await checkOf("attachments_owner_check")).toContain(kind.attachments.column);
      }
      if (kind.chat) {
        expect(kind.table).not.toBeNull();
        expect(await columnsOf(kind.table!.name)).toContain(kind.chat.column);
      }
      if (kind.search) {
        expect(allowed(await checkOf("search_entries_kind_check"))).toContain(kind.search.entry.kind);
      }
    });

    it(`${kind.name}: its API paths are described, its workflow is the engine's, its page a path`, () => {
      for (const prefix of kind.api) {
        expect(
          Object.keys(API).some((path) => path.startsWith(prefix)),
          `no API path ${prefix}`,
        ).toBe(true);
      }
      if (kind.workflow) expect(kind.workflow.kind).toBe(kind.audit.chain);
      if (kind.page) expect(kind.page("x")).toMatch(/^\/[a-z/]+/);
      expect(kind.label).toMatch(/^[A-Z]/);
    });
  }
});

describe("every kind a cross-cutting place knows is registered", () => {
  const registered = RECORD_KINDS as readonly RecordKind[];

  it("trails: the shared table's kinds and the kinds with a table of their own", async () => {
    const inDatabase = allowed(await checkOf("audit_entries_kind_check"));
    expect(inDatabase.sort()).toEqual(
      registered
        .filter(sharesTrail)
        .map((k) => k.audit.chain)
        .sort(),
    );
    // Every table with a hash chain's columns is some kind's trail.
    const chained = await getDb().execute<{ table_name: string }>(sql`
      select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'prev_hash' and table_name <> 'audit_entries'
        and table_name <> 'signature_manifestations'`);
    expect(chained.map((r) => r.table_name).sort()).toEqual(
      registered.flatMap((k) => ("recordColumn" in k.audit.log ? [k.audit.log.table] : [])).sort(),
    );
  });

  it("signature kinds and signature chains", async () => {
    const kinds = registered.flatMap((k) => (k.signatures ? [k.signatures] : []));
    expect(allowed(await checkOf("signature_manifestations_kind_check")).sort()).toEqual(kinds.sort());
    const chains = chainNames().filter((c) => c.endsWith("-signature"));
    expect(chains.sort()).toEqual(kinds.map(signatureChain).sort());
  });

  it("attachment owners and chat rooms", async () => {
    const owners = (await columnsOf("attachments")).filter((c) => c.endsWith("_id") && !/^(uploaded|removed)/.test(c));
    expect(owners.sort()).toEqual(registered.flatMap((k) => (k.attachments ? [k.attachments.column] : [])).sort());
    const rooms = await getDb().execute<{ table_name: string }>(sql`
      select tc.table_name from information_schema.table_constraints tc
        join information_schema.constraint_column_usage cu on cu.constraint_name = tc.constraint_name
      where tc.constraint_type = 'FOREIGN KEY' and cu.table_name = 'chat_rooms' and tc.table_name <> 'chat_messages'`);
    expect(rooms.map((r) => r.table_name).sort()).toEqual(
      registered.flatMap((k) => (k.chat ? [k.table!.name] : [])).sort(),
    );
  });

  it("linkable kinds: the record references' kinds, each described by its table (none for an unknown id)", async () => {
    const linkable = registered.filter((k) => k.linkable);
    expect(linkable.map((k) => k.name).sort()).toEqual([...RECORD_REF_KINDS].sort());
    const admin = { _id: randomUUID(), role: "admin", department: "hseq", access: "full", position: null };
    for (const kind of linkable) {
      expect(await kind.linkable!.describe(getDb(), admin, [randomUUID()])).toEqual([]);
      expect(kind.load, `${kind.name} is linkable, so it loads one record`).not.toBeNull();
      expect(await kind.load!(getDb(), randomUUID())).toBeNull();
    }
  });

  it("search entry kinds", async () => {
    expect(allowed(await checkOf("search_entries_kind_check")).sort()).toEqual(
      registered.flatMap((k) => (k.search ? [k.search.entry.kind] : [])).sort(),
    );
  });
});

describe("each kind's named states: the predicate and its SQL twin agree on every record", () => {
  beforeAll(async () => {
    // MOCs at several steps (open, approved, declined, completed) and a PCR pending, so each state
    // is both true and false somewhere.
    const cast = await makeCast();
    for (const stage of ["a", "c", "e", "decline-d", "completed"] as const)
      await mocAt(stage, cast, { verifier: true });
    await createPcrOk(cast.originator);
  });

  for (const kind of RECORD_KINDS as readonly RecordKind[]) {
    const states = Object.entries(kind.states);
    if (states.length === 0 || !kind.table || !kind.load) continue;
    it(`${kind.name}: ${states.map(([name]) => name).join(", ")}`, async () => {
      const { name: table, alias } = kind.table!;
      const rows = await getDb().execute<{ id: string } & Record<string, boolean>>(sql`
        select ${sql.raw(alias)}.id,
          ${sql.join(
            states.map(([name, state]) => sql`coalesce(${state.sql()}, false) as ${sql.raw(`"${name}"`)}`),
            sql`, `,
          )}
        from ${sql.raw(`${table} ${alias}`)}`);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const record = await kind.load!(getDb(), row.id);
        if (!record) continue;
        for (const [name, state] of states) {
          expect(state.is(record), `${kind.name} ${row.id} ${name}`).toBe(row[name]);
        }
      }
    });
  }
});
