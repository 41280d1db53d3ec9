/**
 * The record-kind registry (app/models/record-kinds.server.ts, docs/decisions/046-workflow-engine.md)
 * against the modules and database checks it names: for every registered kind, each cross-cutting
 * place it claims must know it, and every kind those places know must be registered. A kind added
 * to one without the other fails here, naming the place.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { AUDIT_KINDS, CHAIN_NAMES } from "~/models/audit/audit-chain.server";
import { RECORD_KINDS, recordKinds } from "~/models/record-kinds.server";
import { RECORD_REF_KINDS } from "~/models/records/record-refs.constants";
import { getDb } from "~/utils/db.server";
import { API } from "~/web/openapi.server";

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

describe("every registered kind is known where the registry says", () => {
  for (const kind of recordKinds()) {
    it(`${kind.name}: its audit kind is a chain, and the database accepts its entries`, async () => {
      expect(AUDIT_KINDS).toContain(kind.audit.kind);
      expect(CHAIN_NAMES).toContain(kind.audit.kind);
      if (kind.audit.table === "audit_entries") {
        expect(allowed(await checkOf("audit_entries_kind_check"))).toContain(kind.audit.kind);
      } else {
        expect(await columnsOf(kind.audit.table)).toEqual(expect.arrayContaining(["seq", "prev_hash", "hash"]));
      }
    });

    it(`${kind.name}: its table, signatures, attachments, chat room and search entries exist`, async () => {
      if (kind.table) expect(await columnsOf(kind.table)).toContain("id");
      if (kind.signatures) {
        expect(allowed(await checkOf("signature_manifestations_kind_check"))).toContain(kind.signatures);
        expect(CHAIN_NAMES).toContain(`${kind.signatures}-signature`);
      }
      if (kind.attachments) {
        expect(await columnsOf("attachments")).toContain(kind.attachments.column);
        expect(await checkOf("attachments_owner_check")).toContain(kind.attachments.column);
      }
      if (kind.chat) {
        expect(kind.table).not.toBeNull();
        expect(await columnsOf(kind.table!)).toContain(kind.chat.column);
      }
      if (kind.search) expect(allowed(await checkOf("search_entries_kind_check"))).toContain(kind.search);
    });

    it(`${kind.name}: its API paths are described, its workflow is the engine's`, () => {
      for (const prefix of kind.api) {
        expect(
          Object.keys(API).some((path) => path.startsWith(prefix)),
          `no API path ${prefix}`,
        ).toBe(true);
      }
      if (kind.workflow) expect(kind.workflow.kind).toBe(kind.audit.kind);
      if (kind.notices) expect(kind.notices.link("x")).toMatch(/^\/[a-z]+\/x$/);
    });
  }
});

describe("every kind a cross-cutting place knows is registered", () => {
  const registered = recordKinds();

  it("audit kinds: the code's list and the database's check", async () => {
    expect(Object.keys(RECORD_KINDS).sort()).toEqual([...AUDIT_KINDS].sort());
    const inDatabase = allowed(await checkOf("audit_entries_kind_check"));
    for (const kind of inDatabase) expect(registered.map((k) => k.audit.kind)).toContain(kind);
  });

  it("signature kinds and signature chains", async () => {
    const kinds = registered.flatMap((k) => (k.signatures ? [k.signatures] : []));
    expect(allowed(await checkOf("signature_manifestations_kind_check")).sort()).toEqual(kinds.sort());
    const chains = CHAIN_NAMES.filter((c) => c.endsWith("-signature")).map((c) => c.slice(0, -"-signature".length));
    expect(chains.sort()).toEqual(kinds.sort());
  });

  it("attachment owners and chat rooms", async () => {
    const owners = (await columnsOf("attachments")).filter((c) => c.endsWith("_id") && !/^(uploaded|removed)/.test(c));
    expect(owners.sort()).toEqual(registered.flatMap((k) => (k.attachments ? [k.attachments.column] : [])).sort());
    const rooms = await getDb().execute<{ table_name: string }>(sql`
      select tc.table_name from information_schema.table_constraints tc
        join information_schema.constraint_column_usage cu on cu.constraint_name = tc.constraint_name
      where tc.constraint_type = 'FOREIGN KEY' and cu.table_name = 'chat_rooms' and tc.table_name <> 'chat_messages'`);
    expect(rooms.map((r) => r.table_name).sort()).toEqual(registered.flatMap((k) => (k.chat ? [k.table!] : [])).sort());
  });

  it("linkable kinds: the record references' kinds, each described by its table (none for an unknown id)", async () => {
    const linkable = registered.filter((k) => k.linkable);
    expect(linkable.map((k) => k.name).sort()).toEqual([...RECORD_REF_KINDS].sort());
    const admin = { _id: randomUUID(), role: "admin", department: "hseq", access: "full", position: null };
    for (const kind of linkable) expect(await kind.linkable!.describe(getDb(), admin, [randomUUID()])).toEqual([]);
  });

  it("search entry kinds", async () => {
    expect(allowed(await checkOf("search_entries_kind_check")).sort()).toEqual(
      registered.flatMap((k) => (k.search ? [k.search] : [])).sort(),
    );
  });
});
