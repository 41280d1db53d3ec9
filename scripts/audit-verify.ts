/**
 * `npm run audit:verify`: recomputes every audit chain (MOCs in moc_logs, every other record in
 * audit_entries, every record's signature manifestations) with AUDIT_KEY, compares each with its
 * stored head and the seals in DATA_DIR/seals, checks each MOC's state has its entry, and prints
 * the first problem of each chain; exit code 1 when anything does not hold, 0 when all does.
 * docs/decisions/021-records-people-can-trust.md, docs/decisions/025-keyed-audit-chain.md.
 *
 * AUDIT_KEY as the app has it (every key it ever used, comma-separated); without it, the
 * development key in DATA_DIR/audit-key.
 *
 * Uses DATABASE_URL; without it, the embedded PostgreSQL under DATA_DIR (default `.data`) that
 * `npm start` uses, which must not be running at the same time.
 */
import "~/models/kinds/record-kinds.server";
import path from "node:path";
import { runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { loadDevelopmentSecrets } from "~/server/secrets";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import { closeDb } from "~/utils/db.server";
import { env as readEnv, EnvError, resetEnv } from "~/utils/env.server";

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= "warn";
  let dataDir: string;
  try {
    dataDir = readEnv().DATA_DIR;
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
  if ((await loadDevelopmentSecrets(dataDir, { create: false, names: ["AUDIT_KEY"] })).length) {
    console.error("audit:verify needs AUDIT_KEY (the keys the app writes and has written the trail with)");
    process.exitCode = 1;
    return;
  }
  let embedded: EmbeddedDatabase | undefined;
  if (!process.env.DATABASE_URL) {
    const pid = await runningEmbeddedServer(dataDir);
    if (pid) {
      console.error(
        `audit:verify: the embedded database in ${dataDir}/ is in use (PostgreSQL pid ${pid}); ` +
          "use the admin page /admin/audit, or stop the app, or set DATABASE_URL.",
      );
      process.exitCode = 1;
      return;
    }
    embedded = await startEmbeddedPostgres({ dataDir });
    process.env.DATABASE_URL = embedded.url;
    resetEnv();
  }
  try {
    const { chains, entries, broken, seals } = await verifyAuditTrail();
    const badSeals = seals.filter((seal) => seal.problem);
    const sealed = `${seals.length} seal${seals.length === 1 ? "" : "s"} in ${path.join(dataDir, "seals")}`;
    if (broken.length === 0 && badSeals.length === 0) {
      console.log(`audit:verify: ${entries} entries in ${chains} chains, ${sealed}; every chain holds.`);
      return;
    }
    console.error(`audit:verify: ${entries} entries in ${chains} chains, ${sealed}; ${broken.length} broken:`);
    for (const link of broken) {
      const entry = link.seq > 0 ? `entry #${link.seq}${link.entryId ? ` (${link.entryId})` : ""}: ` : "";
      console.error(`  ${link.kind} ${link.recordId}: ${entry}${link.reason}`);
    }
    for (const seal of badSeals) console.error(`  seal ${seal.file}: ${seal.problem}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`audit:verify failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
