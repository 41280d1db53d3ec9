/**
 * The daily seal of the audit trail (docs/decisions/025-keyed-audit-chain.md): the heads of every
 * chain at that moment written as a keyed seal (its format: app/models/audit/audit-seal.server.ts)
 * to DATA_DIR/seals/<day>.json, and announced to every admin by email with the file's SHA-256.
 *
 * The scheduler (jobs/audit-seal.ts) runs it once a day across instances; the day is claimed in
 * `job_runs` in the seal's transaction, so a repeated job is a no-op.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { AUDIT_SEAL_QUEUE } from "#jobs/queues";
import { getDb } from "~/utils/db.server";
import { keyedHash, signingKey, type ChainName } from "../audit/audit-chain.server";
import { SEAL_FORMAT, sealContent, sealFolder, type Seal } from "../audit/audit-seal.server";
import { notify } from "../messages/email.server";

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
      format: SEAL_FORMAT,
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
