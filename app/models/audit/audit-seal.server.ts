/**
 * The daily seal of the audit trail (docs/decisions/025-keyed-audit-chain.md): every chain's head
 * (its length and last hash) at that moment, keyed with AUDIT_KEY, written outside the database
 * as DATA_DIR/seals/<day>.json and announced to every admin by email with the file's SHA-256.
 * Verify then checks each chain still holds every head a seal holds: a tail removed, or a chain
 * rewritten, before the seal shows even to someone who also rolled its stored head back.
 *
 * The scheduler (jobs/audit-seal.ts) runs it once a day across instances; the day is claimed in
 * `job_runs` in the seal's transaction, so a repeated job is a no-op.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { AUDIT_SEAL_QUEUE } from "#jobs/queues";
import { getDb } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { CHAIN_NAMES, keyById, keyedHash, signingKey, type ChainName } from "./audit-chain.server";
import { notify } from "../messages/email.server";

const FORMAT = "change-management audit seal 1";

/** The folder of the seals (DATA_DIR/seals). */
export const sealFolder = () => path.join(env().DATA_DIR, "seals");

export type SealHead = [chain: ChainName, recordId: string, seq: number, hash: string];

export type Seal = {
  format: typeof FORMAT;
  day: string;
  sealedAt: string;
  keyId: string;
  chains: number;
  entries: number;
  heads: SealHead[];
  mac: string;
};

/** What a seal's MAC covers: everything in it but the MAC. */
const sealContent = (seal: Omit<Seal, "mac">) =>
  JSON.stringify([seal.format, seal.day, seal.sealedAt, seal.keyId, seal.chains, seal.entries, seal.heads]);

const sealSchema = z.object({
  format: z.literal(FORMAT),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  sealedAt: z.string(),
  keyId: z.string(),
  chains: z.number().int().min(0),
  entries: z.number().int().min(0),
  heads: z.array(z.tuple([z.enum(CHAIN_NAMES), z.uuid(), z.number().int().min(1), z.string()])),
  mac: z.string(),
});

/** A seal file read and checked: well formed, keyed with a key AUDIT_KEY holds. Throws with the problem. */
export async function readSeal(file: string): Promise<Seal> {
  let data: unknown;
  try {
    data = JSON.parse(await fs.readFile(file, "utf8"));
  } catch {
    throw new Error("it is not a seal (unreadable JSON)");
  }
  const parsed = sealSchema.safeParse(data);
  if (!parsed.success) throw new Error("it is not a seal (unexpected content)");
  const seal = parsed.data as Seal;
  const key = keyById(seal.keyId);
  if (!key) throw new Error(`it was keyed with audit key ${seal.keyId}, which AUDIT_KEY does not hold`);
  if (keyedHash(key, sealContent(seal)) !== seal.mac) {
    throw new Error("its MAC does not match its content (the file was changed)");
  }
  return seal;
}

export type SealOutcome = { ran: boolean; day: string; file?: string; chains?: number; entries?: number };

/** Seals the heads as of now, once per UTC day: the file, then the admins' email, in the claim's transaction. */
export async function sealAuditTrail(now = new Date(), dir = sealFolder()): Promise<SealOutcome> {
  const day = now.toISOString().slice(0, 10);
  return getDb().transaction(async (tx) => {
    const claimed = await tx.execute(sql`insert into job_runs (queue, key) values (${AUDIT_SEAL_QUEUE}, ${day})
      on conflict do nothing returning key`);
    if (claimed.length === 0) return { ran: false, day };
    const rows = await tx.execute<{ chain: ChainName; record_id: string; seq: number; hash: string }>(
      sql`select chain, record_id, seq, hash from audit_heads order by chain, record_id`,
    );
    const key = signingKey();
    const body: Omit<Seal, "mac"> = {
      format: FORMAT,
      day,
      sealedAt: now.toISOString(),
      keyId: key.id,
      chains: rows.length,
      entries: rows.reduce((sum, r) => sum + r.seq, 0),
      heads: rows.map((r) => [r.chain, r.record_id, r.seq, r.hash]),
    };
    const seal: Seal = { ...body, mac: keyedHash(key, sealContent(body)) };
    const text = `${JSON.stringify(seal, null, 1)}\n`;
    const name = `${day}.json`;
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const temporary = path.join(dir, `.${name}.${randomBytes(4).toString("hex")}`);
    await fs.writeFile(temporary, text, { mode: 0o600 });
    await fs.rename(temporary, path.join(dir, name));
    const digest = createHash("sha256").update(text, "utf8").digest("hex");
    await notify(tx, {
      to: { admins: true },
      // A record to keep, not a notice anyone turns off (docs/decisions/029-oidc-and-notifications.md).
      kind: "account",
      content: {
        record: null,
        subject: `Audit trail sealed for ${day}`,
        event: `The audit trail was sealed for ${day}: ${seal.chains} chains, ${seal.entries} entries.`,
        expectation:
          "Keep this email: with the seal file it shows later that no record's history was shortened or rewritten before today.",
        details: [
          ["Seal file", `DATA_DIR/seals/${name}`],
          ["SHA-256 of the file", digest],
          ["Seal MAC", seal.mac],
          ["Audit key id", key.id],
        ],
      },
    });
    return { ran: true, day, file: path.join(dir, name), chains: seal.chains, entries: seal.entries };
  });
}
