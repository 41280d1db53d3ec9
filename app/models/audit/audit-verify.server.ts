/**
 * Verification of the audit trail (`npm run audit:verify`, /admin/audit;
 * docs/decisions/025-keyed-audit-chain.md). For every chain (a record's audit entries, a record's
 * signature manifestations) it checks, in Node and independently of the database's functions:
 *
 * - each entry follows the one before (seq 1, 2, 3, its prev_hash the previous hash) and its hash
 *   is the HMAC, with the AUDIT_KEY it names, of its content; entries written before the key
 *   (SHA-256, key_id null) only as the chain's first entries;
 * - the chain ends where its stored head says, and the head is keyed: a removed tail shows;
 * - the chain holds every head of every seal in DATA_DIR/seals (each seal keyed too);
 * - every record's state is the one its trail accounts for, as its kind checks it (a MOC: it has
 *   a chain, its status is the one its last move named, a completed one has its closing entry);
 * - every account's role, department, access, position and active flag are the ones its chain
 *   last recorded (audit-account.server.ts).
 *
 * It names the first problem of each chain. The chains it reads are the registered kinds'
 * (app/models/record-kind/record-kind.ts): the shared `audit_entries`, each kind's own trail table,
 * and the signature manifestations.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { getDb, type Database, type Executor } from "~/utils/db.server";
import {
  entryContent,
  headContent,
  keyById,
  keyedHash,
  sha256,
  signatureContent,
  type ChainName,
} from "./audit-chain.server";
import { accountProblem, replayAccount, rightsOf } from "./audit-account.server";
import { readSeal, sealFolder, type Seal } from "./audit-seal.server";
import { recordKinds } from "../record-kind/record-kind";

export type BrokenLink = {
  kind: ChainName;
  recordId: string;
  /** The first entry of the chain that fails (its position in the chain, 1-based, and its id); 0 and "" for the chain as a whole. */
  seq: number;
  entryId: string;
  reason: string;
};

export type SealCheck = { file: string; day: string | null; problem: string | null };

export type AuditVerification = {
  chains: number;
  entries: number;
  broken: BrokenLink[];
  /** The seal files read from DATA_DIR/seals, each with its problem (null when it holds). */
  seals: SealCheck[];
};

type EntryRow = {
  chain: ChainName;
  record_id: string;
  id: string;
  seq: number;
  prev_hash: string | null;
  hash: string;
  key_id: string | null;
  content: unknown[];
};

type HeadRow = { chain: ChainName; record_id: string; seq: number; hash: string; key_id: string; mac: string };

type Chain = { entries: EntryRow[]; head: HeadRow | null };

/** Checks every chain, its head, the seals and the MOCs' states; `broken` empty when all hold. */
export async function verifyAuditTrail(db: Database = getDb(), sealDir = sealFolder()): Promise<AuditVerification> {
  // One snapshot for the entries, the heads and the states: a step writes its entry and its chain's
  // head in one transaction, and read one statement after the other a step committed in between
  // showed as a chain cut short (a head one entry ahead of the entries read).
  const { rows, heads, states, accounts } = await db.transaction(
    async (tx) => ({
      rows: await chainEntries(tx),
      heads: await chainHeads(tx),
      states: await stateProblems(tx),
      accounts: await accountRows(tx),
    }),
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );

  const chains = new Map<string, Chain>();
  const chainOf = (chain: string, recordId: string) => {
    const key = `${chain}:${recordId}`;
    let found = chains.get(key);
    if (!found) chains.set(key, (found = { entries: [], head: null }));
    return found;
  };
  for (const row of rows) chainOf(row.chain, row.record_id).entries.push(row);
  for (const head of heads) chainOf(head.chain, head.record_id).head = head;

  const broken: BrokenLink[] = [];
  const problems = new Set<string>();
  // A chain's first problem of each sort: its links and head, a seal, the record's state.
  const report = (link: BrokenLink, sort: "chain" | "seal" | "state" | "account") => {
    const key = `${sort}:${link.kind}:${link.recordId}`;
    if (problems.has(key)) return;
    problems.add(key);
    broken.push(link);
  };

  for (const [key, chain] of chains) {
    const [name, ...rest] = key.split(":");
    const recordId = rest.join(":");
    const problem = chainProblem(name as ChainName, recordId, chain);
    if (problem) report({ kind: name as ChainName, recordId, ...problem }, "chain");
  }

  const seals = await checkSeals(sealDir, chains, (link) => report(link, "seal"));
  for (const problem of states) report(problem, "state");
  for (const problem of accountProblems(accounts, chains)) report(problem, "account");

  let chainCount = 0;
  for (const chain of chains.values()) if (chain.entries.length) chainCount += 1;
  return { chains: chainCount, entries: rows.length, broken, seals };
}

/** Every entry of every chain, in chain order: the shared trail, each kind's own trail table, the signatures. */
function chainEntries(tx: Executor) {
  const at = (column: string) => sql.raw(iso(column, "us"));
  const ownTrails = recordKinds().flatMap((kind) => {
    const log = kind.audit.log;
    if (log.table === "audit_entries") return [];
    const table = sql.raw(`${log.table} l`);
    const record = sql.raw(`l.${"recordColumn" in log ? log.recordColumn : ""}`);
    return [
      sql`select ${kind.audit.chain}::text as chain, ${record} as record_id, l.id, l.seq, l.prev_hash, l.hash, l.key_id,
        json_build_array(l.user_id, l.action, l.from_status, l.to_status, l.comment, ${at("l.at")}, l.on_behalf_of)
          as content
      from ${table}
      union all`,
    ];
  });
  return tx.execute<EntryRow>(sql`
    select * from (
      ${sql.join(ownTrails, sql` `)}
      select e.record_kind, e.record_id, e.id, e.seq, e.prev_hash, e.hash, e.key_id,
        json_build_array(e.actor_id, e.action, e.from_value, e.to_value, e.comment, ${at("e.at")}, null)
      from audit_entries e
      union all
      select s.record_kind || '-signature', s.record_id, s.id, s.seq, s.prev_hash, s.hash, s.key_id,
        json_build_array(s.signer_id, s.printed_name, s.position, s.role, s.meaning, ${at("s.signed_at")},
          s.on_behalf_of, s.on_behalf_of_name)
      from signature_manifestations s
    ) c order by c.chain, c.record_id, c.seq`);
}

function chainHeads(tx: Executor) {
  return tx.execute<HeadRow>(sql`select chain, record_id, seq, hash, key_id, mac from audit_heads`);
}

function contentOf(name: ChainName, recordId: string, row: EntryRow): string {
  const c = row.content as (string | null)[];
  if (name.endsWith("-signature")) {
    return signatureContent({
      kind: name.slice(0, -"-signature".length),
      recordId,
      seq: row.seq,
      signerId: c[0]!,
      printedName: c[1]!,
      position: c[2] ?? null,
      role: c[3]!,
      meaning: c[4]!,
      signedAt: c[5]!,
      onBehalfOf: c[6] ?? null,
      onBehalfOfName: c[7] ?? null,
      prevHash: row.prev_hash,
    });
  }
  return entryContent({
    kind: name,
    recordId,
    seq: row.seq,
    actorId: c[0] ?? null,
    action: c[1]!,
    from: c[2] ?? null,
    to: c[3] ?? null,
    comment: c[4] ?? null,
    at: c[5]!,
    prevHash: row.prev_hash,
    onBehalfOf: c[6] ?? null,
  });
}

const missingKey = (id: string) => `it was keyed with audit key ${id}, which AUDIT_KEY does not hold`;

function chainProblem(
  name: ChainName,
  recordId: string,
  chain: Chain,
): { seq: number; entryId: string; reason: string } | null {
  let previous: EntryRow | null = null;
  for (const row of chain.entries) {
    const at = { seq: row.seq, entryId: row.id };
    const expectedSeq = (previous?.seq ?? 0) + 1;
    if (row.seq !== expectedSeq) return { ...at, reason: `entry ${expectedSeq} is missing (found ${row.seq} next)` };
    if ((row.prev_hash ?? null) !== (previous?.hash ?? null)) {
      return { ...at, reason: "its link to the previous entry does not match" };
    }
    const content = contentOf(name, recordId, row);
    if (row.key_id === null) {
      if (previous && previous.key_id !== null) {
        return {
          ...at,
          reason: "it was written without the audit key, after keyed entries (added behind the app's back)",
        };
      }
      if (sha256(content) !== row.hash) {
        return { ...at, reason: "its content does not match its hash (changed after it was written)" };
      }
    } else {
      const key = keyById(row.key_id);
      if (!key) return { ...at, reason: missingKey(row.key_id) };
      if (keyedHash(key, content) !== row.hash) {
        return {
          ...at,
          reason:
            "its content does not match its keyed hash (changed after it was written, or re-hashed without the key)",
        };
      }
    }
    previous = row;
  }
  const last = chain.entries.at(-1);
  const head = chain.head;
  if (!head) {
    return last
      ? { seq: last.seq, entryId: last.id, reason: "the chain has no stored head (its length is not known)" }
      : null;
  }
  const headKey = keyById(head.key_id);
  if (!headKey) return { seq: head.seq, entryId: "", reason: `its stored head: ${missingKey(head.key_id)}` };
  if (keyedHash(headKey, headContent(name, recordId, head.seq, head.hash)) !== head.mac) {
    return {
      seq: head.seq,
      entryId: "",
      reason: "its stored head was not written with the audit key (changed or forged)",
    };
  }
  const length = last?.seq ?? 0;
  if (length < head.seq) {
    return {
      seq: length + 1,
      entryId: "",
      reason: `truncated: its head records ${head.seq} entries, only ${length} remain (entries ${length + 1}-${head.seq} were removed)`,
    };
  }
  if (length > head.seq) {
    const extra = chain.entries.find((e) => e.seq === head.seq + 1)!;
    return {
      seq: extra.seq,
      entryId: extra.id,
      reason: `entries after its head (${head.seq}) were added behind the app's back`,
    };
  }
  if (last && last.hash !== head.hash) {
    return { seq: last.seq, entryId: last.id, reason: "its last entry is not the one its head records" };
  }
  return null;
}

/** Every seal file checked (keyed, well formed), and every chain against the heads it holds. */
async function checkSeals(
  dir: string,
  chains: Map<string, Chain>,
  report: (link: BrokenLink) => void,
): Promise<SealCheck[]> {
  if (!existsSync(dir)) return [];
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  const checks: SealCheck[] = [];
  for (const file of files) {
    let seal: Seal;
    try {
      seal = await readSeal(path.join(dir, file));
    } catch (error) {
      checks.push({ file, day: null, problem: error instanceof Error ? error.message : String(error) });
      continue;
    }
    checks.push({ file, day: seal.day, problem: null });
    for (const [name, recordId, seq, hash] of seal.heads) {
      const entries = chains.get(`${name}:${recordId}`)?.entries ?? [];
      const entry = entries.find((e) => e.seq === seq);
      if (!entry) {
        const length = entries.at(-1)?.seq ?? 0;
        report({
          kind: name,
          recordId,
          seq: length + 1,
          entryId: "",
          reason: `truncated: the seal of ${seal.day} holds ${seq} entries, only ${length} remain`,
        });
      } else if (entry.hash !== hash) {
        report({
          kind: name,
          recordId,
          seq,
          entryId: entry.id,
          reason: `entry ${seq} is not the one the seal of ${seal.day} holds (the chain was rewritten)`,
        });
      }
    }
  }
  return checks;
}

type AccountRow = {
  id: string;
  role: string;
  department: string;
  access: string;
  position: string | null;
  active: boolean;
};

function accountRows(tx: Executor) {
  return tx.execute<AccountRow>(sql`select id, role, department, access, position, active from users`);
}

/** Accounts whose rights are not the ones their chain last recorded (audit-account.server.ts). */
function accountProblems(accounts: AccountRow[], chains: Map<string, Chain>): BrokenLink[] {
  const problems: BrokenLink[] = [];
  for (const account of accounts) {
    const entries = chains.get(`user:${account.id}`)?.entries ?? [];
    const replay = replayAccount(
      entries.map((row) => {
        const c = row.content as (string | null)[];
        return { action: c[1]!, to: c[3] ?? null, comment: c[4] ?? null };
      }),
    );
    const reason = accountProblem(rightsOf(account), { entries: entries.length, replay });
    if (reason) {
      const last = entries.at(-1);
      problems.push({ kind: "user", recordId: account.id, seq: last?.seq ?? 0, entryId: last?.id ?? "", reason });
    }
  }
  return problems;
}

/** Records whose state their trail does not account for, as each kind checks it. */
async function stateProblems(db: Executor): Promise<BrokenLink[]> {
  const problems: BrokenLink[] = [];
  for (const kind of recordKinds()) {
    if (!kind.audit.stateProblems) continue;
    for (const problem of await kind.audit.stateProblems(db)) problems.push({ kind: kind.audit.chain, ...problem });
  }
  return problems;
}
