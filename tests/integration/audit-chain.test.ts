/**
 * docs/decisions/025-keyed-audit-chain.md: the trail's tamper evidence cannot be re-forged by whoever can write the
 * tables (docs/decisions/025-keyed-audit-chain.md). The attack of the issue, performed as a
 * database superuser would (replica mode, the triggers switched off, the chain recomputed with
 * the database's own hash function, a tail truncated, the last entry deleted), must make
 * `verifyAuditTrail`, `npm run audit:verify` and /admin/audit fail; keys rotate; the seal holds the
 * heads outside the database; the app refuses a superuser in production.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditPage from "~/routes/admin+/audit";
import { adoptAuditChains, auditKeyId } from "~/models/audit/audit-chain.server";
import { appendAudit, verifyAuditTrail, type BrokenLink } from "~/models/audit/audit.server";
import { readSeal } from "~/models/audit/audit-seal.server";
import { sealAuditTrail } from "~/models/ops/audit-seal-day.server";
import { setPreferences } from "~/models/people/notice-preferences.server";
import { getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { buildRequest } from "../helpers/request";
import { makeAdmin } from "../helpers/factories";
import { defaultStepBody, makeCast, mocAt, stepOk, tokenOf } from "../helpers/moc-flow";

const run = promisify(execFile);
const db = () => getDb();
const KEY = process.env.AUDIT_KEY!;
const sealDir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-seals-"));

/**
 * The app started in production as the database superuser (the last test's subject). It refuses
 * before it touches the database, and starting the app's code takes a while: it runs beside the
 * other tests, from the file's start.
 */
let superuserStart: Promise<{ code: number; stderr: string }>;
beforeAll(() => {
  superuserStart = run(process.execPath, ["--import", "tsx", "app/server/main.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: "0",
      LOG_LEVEL: "silent",
      SESSION_SECRET: "s".repeat(40),
      AUDIT_KEY: "a".repeat(40),
    },
    timeout: 120_000,
  }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
});

afterAll(async () => {
  await superuserStart;
  process.env.AUDIT_KEY = KEY;
  resetEnv();
  await fs.rm(sealDir, { recursive: true, force: true });
});

/** What verify says about one record's chains. */
async function problemsOf(recordId: string, dir = sealDir): Promise<BrokenLink[]> {
  return (await verifyAuditTrail(db(), dir)).broken.filter((b) => b.recordId === recordId);
}

/** Runs statements as a superuser with the named triggers off, as the attacker of docs/decisions/025-keyed-audit-chain.md did. */
async function withTriggersOff(table: string, triggers: string[], statements: ReturnType<typeof sql>[]) {
  for (const trigger of triggers) await db().execute(sql.raw(`alter table ${table} disable trigger ${trigger}`));
  try {
    for (const statement of statements) await db().execute(statement);
  } finally {
    for (const trigger of triggers)
      await db().execute(sql.raw(`alter table ${table} enable always trigger ${trigger}`));
  }
}

/** Recomputes a MOC's chain from `fromSeq` with the database's own function, unkeyed, as the attack did. */
const recomputeWithDatabaseFunction = (mocId: string, fromSeq: number) => sql`
  do $$
  declare
    r record;
    previous text;
  begin
    select l.hash into previous from moc_logs l where l.moc_id = ${sql.raw(`'${mocId}'`)} and l.seq = ${sql.raw(String(fromSeq - 1))};
    for r in select * from moc_logs l where l.moc_id = ${sql.raw(`'${mocId}'`)} and l.seq >= ${sql.raw(String(fromSeq))} order by l.seq loop
      update moc_logs set prev_hash = previous, key_id = null,
        hash = moc_log_hash(r.moc_id, r.seq, r.user_id, r.action, r.from_status, r.to_status, r.comment, r.at, previous,
          r.on_behalf_of)
      where id = r.id returning hash into previous;
    end loop;
  end $$`;

describe("the attack of issue 32 against the trail", () => {
  it("replica mode does not switch the append-only triggers off", async () => {
    const cast = await makeCast();
    const moc = await mocAt("c", cast);
    for (const statement of [
      sql`update moc_logs set comment = 'changed' where moc_id = ${moc._id}`,
      sql`delete from moc_logs where moc_id = ${moc._id}`,
      sql`truncate moc_logs`,
      sql`delete from audit_entries`,
      sql`delete from signature_manifestations`,
      sql`update audit_heads set seq = 1`,
      sql`delete from audit_heads`,
    ]) {
      const error = await db()
        .transaction(async (tx) => {
          await tx.execute(sql`set local session_replication_role = replica`);
          await tx.execute(statement);
        })
        .then(() => null)
        .catch((e: Error & { cause?: Error }) => String(e.cause?.message ?? e.message));
      expect(error).toMatch(/append-only: (UPDATE|DELETE|TRUNCATE) refused|only moves forward/);
    }
    expect(await problemsOf(moc._id)).toEqual([]);
  });

  it("a chain recomputed with the database's function, after changing who verified, fails verify", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast);
    const [closing] = await db().execute<{ seq: number; id: string }>(
      sql`select seq, id from moc_logs where moc_id = ${moc._id} and action = 'Verified and closed'`,
    );
    // Someone else "verified" it; then every hash from that entry on is recomputed, the head too.
    await withTriggersOff(
      "moc_logs",
      ["moc_logs_append_only"],
      [
        sql`update moc_logs set user_id = ${cast.hseq._id} where id = ${closing!.id}`,
        recomputeWithDatabaseFunction(moc._id, closing!.seq),
      ],
    );
    expect(await problemsOf(moc._id)).toEqual([
      expect.objectContaining({
        kind: "moc",
        seq: closing!.seq,
        entryId: closing!.id,
        reason: expect.stringMatching(/written without the audit key/),
      }),
    ]);
    // Recomputed from the first entry, unkeyed, with the head moved to the new last hash: the
    // head's keyed MAC no longer matches.
    await withTriggersOff("moc_logs", ["moc_logs_append_only"], [recomputeWithDatabaseFunction(moc._id, 1)]);
    await withTriggersOff(
      "audit_heads",
      ["audit_heads_forward_only"],
      [
        sql`update audit_heads h set hash = (select l.hash from moc_logs l where l.moc_id = h.record_id order by l.seq desc limit 1)
          where h.chain = 'moc' and h.record_id = ${moc._id}`,
      ],
    );
    expect(await problemsOf(moc._id)).toEqual([
      expect.objectContaining({
        kind: "moc",
        reason: expect.stringMatching(/head was not written with the audit key/),
      }),
    ]);
  });

  it("the last entry deleted (an admin's self-verification): truncated against the head, and no closing entry", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast);
    const [head] = await db().execute<{ seq: number }>(
      sql`select seq from audit_heads where chain = 'moc' and record_id = ${moc._id}`,
    );
    await withTriggersOff(
      "moc_logs",
      ["moc_logs_append_only"],
      [sql`delete from moc_logs where moc_id = ${moc._id} and action = 'Verified and closed'`],
    );
    const problems = await problemsOf(moc._id);
    expect(problems.map((p) => p.reason)).toEqual([
      `truncated: its head records ${head!.seq} entries, only ${head!.seq - 1} remain (entries ${head!.seq}-${head!.seq} were removed)`,
      'the MOC is completed but no entry records it (no "Verified and closed")',
    ]);
    // Rolling the head back to the entry before does not help: its MAC covers the length.
    await withTriggersOff(
      "audit_heads",
      ["audit_heads_forward_only"],
      [
        sql`update audit_heads h set seq = l.seq, hash = l.hash from moc_logs l
        where h.chain = 'moc' and h.record_id = ${moc._id} and l.moc_id = h.record_id and l.seq = ${head!.seq - 1}`,
      ],
    );
    expect((await problemsOf(moc._id)).map((p) => p.reason)).toEqual([
      "its stored head was not written with the audit key (changed or forged)",
      'the MOC is completed but no entry records it (no "Verified and closed")',
    ]);
    // The admin page and `npm run audit:verify` (which exits non-zero) say so too. The command
    // only reads the trail: it starts first and runs while the page is checked.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-verify-"));
    const verifying = run(process.execPath, ["--import", "tsx", "scripts/audit-verify.ts"], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    const admin = await makeAdmin();
    const page = await auditPage.loader({
      request: await buildRequest({ path: "/admin/audit", token: await tokenOf(admin), cookie: true }),
      params: {},
      context: {},
    });
    expect(page.broken.filter((b) => b.recordId === moc._id)).toHaveLength(2);
    const cli = await verifying;
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`moc ${moc._id}: `);
    expect(cli.stderr).toContain("no entry records it");
    await fs.rm(dataDir, { recursive: true });
  }, 120_000);

  it("a tail truncated with an old, genuine head put back: the seal shows it", async () => {
    const cast = await makeCast();
    const moc = await mocAt("c", cast);
    // The head as it was at status c (a backup of the row, say), before two more steps.
    const [old] = await db().execute<{ seq: number; hash: string; key_id: string; mac: string }>(
      sql`select seq, hash, key_id, mac from audit_heads where chain = 'moc' and record_id = ${moc._id}`,
    );
    const atD = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", moc, cast));
    await stepOk("approver", cast.approver, defaultStepBody("approver", atD, cast));
    const day = new Date().toISOString().slice(0, 10);
    const sealed = await sealAuditTrail(new Date(), sealDir);
    expect(sealed).toMatchObject({ ran: true, day });
    expect(await problemsOf(moc._id)).toEqual([]);
    // Truncate the tail, put the old head back, and the MOC's status too: chain, head and state agree.
    await withTriggersOff(
      "moc_logs",
      ["moc_logs_append_only"],
      [sql`delete from moc_logs where moc_id = ${moc._id} and seq > ${old!.seq}`],
    );
    await withTriggersOff(
      "audit_heads",
      ["audit_heads_forward_only"],
      [
        sql`update audit_heads set seq = ${old!.seq}, hash = ${old!.hash}, key_id = ${old!.key_id}, mac = ${old!.mac}
        where chain = 'moc' and record_id = ${moc._id}`,
      ],
    );
    await db().execute(sql`update mocs set status = 'c' where id = ${moc._id}`);
    // Without the seal nothing in the database shows it...
    const emptyDir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-no-seals-"));
    expect(await problemsOf(moc._id, emptyDir)).toEqual([]);
    await fs.rm(emptyDir, { recursive: true });
    // ...with it, verify names the truncation.
    expect((await problemsOf(moc._id)).map((p) => p.reason)).toEqual([
      `truncated: the seal of ${day} holds ${old!.seq + 2} entries, only ${old!.seq} remain`,
    ]);
  });
});

describe("a verification while the trail is being written", () => {
  it("reads the entries and the heads in one snapshot: a step committed meanwhile is no broken chain", async () => {
    // A writer appends to one chain as fast as it can (each entry and its head in one transaction)
    // while the trail is verified again and again: read statement by statement, an append
    // committed between the entries and the heads looked like a chain cut short.
    const record = randomUUID();
    await appendAudit(db(), { kind: "review", recordId: record, actorId: null, action: "Entry 0" });
    let writing = true;
    let written = 1;
    let stopped = false;
    // Each append (and the writer's end) wakes whoever waits for the next one.
    let appended = () => {};
    const nextAppend = () => new Promise<void>((resolve) => (appended = resolve));
    const writer = (async () => {
      try {
        while (writing) {
          await appendAudit(db(), { kind: "review", recordId: record, actorId: null, action: `Entry ${written}` });
          written += 1;
          appended();
        }
      } finally {
        stopped = true;
        appended();
      }
    })();
    // After each verification, wait for the writer to have appended again (an event, not a time):
    // each round then reads a chain that moved since the last, however fast either side runs.
    const appendedSince = async (count: number) => {
      while (written <= count && !stopped) await nextAppend();
    };
    const seen: BrokenLink[] = [];
    try {
      for (let round = 0; round < 30; round++) {
        const before = written;
        seen.push(...(await problemsOf(record)));
        await appendedSince(before);
      }
    } finally {
      writing = false;
      await writer;
    }
    expect(written).toBeGreaterThan(30);
    expect(seen).toEqual([]);
    expect(await problemsOf(record)).toEqual([]);
  });
});

describe("the daily seal", () => {
  it("writes the heads keyed to DATA_DIR/seals, emails the admins once a day, and a changed file shows", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-seal-day-"));
    const admin = await makeAdmin();
    // The seal's email is a record to keep, not a decision on a MOC: no notice choice turns it off.
    await setPreferences(admin, { moc_decision: "off" });
    const when = new Date("2031-03-04T00:15:00Z");
    const outcome = await sealAuditTrail(when, dir);
    expect(outcome).toMatchObject({ ran: true, day: "2031-03-04" });
    const seal = await readSeal(path.join(dir, "2031-03-04.json"));
    const [count] = await db().execute<{ n: number }>(sql`select count(*)::int as n from audit_heads`);
    expect(seal.heads.length).toBe(count!.n);
    expect(seal.keyId).toBe(auditKeyId(KEY));
    const [mail] = await db().execute<{ subject: string; kind: string; emailed: boolean; text: string }>(
      sql`select subject, kind, emailed, text from email_messages
        where to_email = ${admin.email} and subject like '%sealed for 2031-03-04%'`,
    );
    expect(mail?.subject).toContain("Audit trail sealed for 2031-03-04");
    expect(mail).toMatchObject({ kind: "account", emailed: true });
    expect(mail!.text).not.toContain("/unsubscribe/");
    expect(await sealAuditTrail(when, dir)).toEqual({ ran: false, day: "2031-03-04" });
    // A seal file edited (a head shortened) no longer verifies.
    const file = path.join(dir, "2031-03-04.json");
    const text = await fs.readFile(file, "utf8");
    const edited = JSON.parse(text) as { heads: [string, string, number, string][] };
    edited.heads[0]![2] = 1;
    await fs.writeFile(file, JSON.stringify(edited));
    const result = await verifyAuditTrail(db(), dir);
    expect(result.seals).toEqual([
      { file: "2031-03-04.json", day: null, problem: "its MAC does not match its content (the file was changed)" },
    ]);
    await fs.rm(dir, { recursive: true });
  });
});

describe("AUDIT_KEY", () => {
  const setKeys = (value: string) => {
    process.env.AUDIT_KEY = value;
    resetEnv();
  };

  it("rotates: new entries take the first key, old ones verify with the key they name, a dropped key shows", async () => {
    const record = randomUUID();
    const NEW = "rotated-audit-key-0123456789-0123456789-xyz";
    setKeys(KEY);
    await appendAudit(db(), { kind: "review", recordId: record, actorId: null, action: "Written with the old key" });
    setKeys(`${NEW},${KEY}`);
    await appendAudit(db(), { kind: "review", recordId: record, actorId: null, action: "Written with the new key" });
    const rows = await db().execute<{ seq: number; key_id: string }>(
      sql`select seq, key_id from audit_entries where record_id = ${record} order by seq`,
    );
    expect(rows).toEqual([
      { seq: 1, key_id: auditKeyId(KEY) },
      { seq: 2, key_id: auditKeyId(NEW) },
    ]);
    expect(await problemsOf(record)).toEqual([]);
    // Without the old key, the entries it wrote cannot be checked: verify says so.
    setKeys(NEW);
    expect(await problemsOf(record)).toEqual([
      expect.objectContaining({
        seq: 1,
        reason: `it was keyed with audit key ${auditKeyId(KEY)}, which AUDIT_KEY does not hold`,
      }),
    ]);
    // A chain keyed with one key does not verify with another that claims its id.
    setKeys(KEY);
    await withTriggersOff(
      "audit_entries",
      ["audit_entries_append_only"],
      [sql`update audit_entries set key_id = ${auditKeyId(KEY)} where record_id = ${record} and seq = 2`],
    );
    expect((await problemsOf(record))[0]?.reason).toMatch(/does not match its keyed hash/);
  });

  it("is required in production, at least 32 characters a key", async () => {
    const { loadEnv } = await import("~/utils/env.server");
    const base = { SESSION_SECRET: "s".repeat(32), NODE_ENV: "production" } as NodeJS.ProcessEnv;
    expect(() => loadEnv(base)).toThrow("AUDIT_KEY is required in production");
    expect(() => loadEnv({ ...base, AUDIT_KEY: "short" })).toThrow("each AUDIT_KEY key must be at least 32 characters");
    expect(loadEnv({ ...base, AUDIT_KEY: `${"a".repeat(32)},${"b".repeat(40)}` }).AUDIT_KEY).toContain(",");
  });
});

describe("chains written before the key", () => {
  it("get a keyed head once, after which rewriting them shows", async () => {
    // Entries as the database hashed them before migration 0016 (no key_id, SHA-256 in the trigger).
    const record = randomUUID();
    await db().execute(sql`insert into moc_logs (moc_id, user_id, action, from_status, to_status)
      values (${record}, null, 'Created (before the key)', null, 'a'), (${record}, null, 'Edited', 'a', 'a')`);
    expect((await problemsOf(record)).map((p) => p.reason)).toEqual([
      "the chain has no stored head (its length is not known)",
    ]);
    expect(await adoptAuditChains()).toBeGreaterThanOrEqual(1);
    expect(await problemsOf(record)).toEqual([]);
    expect(await adoptAuditChains()).toBe(0);
    // Rewritten with the database's function: the chain is self-consistent, but not its keyed head.
    await withTriggersOff(
      "moc_logs",
      ["moc_logs_append_only"],
      [
        sql`update moc_logs set comment = 'rewritten' where moc_id = ${record} and seq = 1`,
        recomputeWithDatabaseFunction(record, 1),
      ],
    );
    expect((await problemsOf(record)).map((p) => p.reason)).toEqual(["its last entry is not the one its head records"]);
  });
});

describe("the database role", () => {
  it("the app refuses to start in production as a database superuser, with a clear message", async () => {
    const result = await superuserStart;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Refusing to start in production as the database superuser "postgres"');
  }, 120_000);
});
