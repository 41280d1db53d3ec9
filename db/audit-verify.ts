/**
 * `npm run audit:verify`: recomputes every audit chain (MOCs in moc_logs, every other record in
 * audit_entries) and prints the first broken link of each; exit code 1 when any is broken, 0 when
 * every chain holds. docs/decisions/021-records-people-can-trust.md.
 *
 * Uses DATABASE_URL; without it, the embedded PostgreSQL under DATA_DIR (default `.data`) that
 * `npm start` uses, which must not be running at the same time.
 */
import { runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { verifyAuditTrail } from "~/models/audit.server";
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
    const { chains, entries, broken } = await verifyAuditTrail();
    if (broken.length === 0) {
      console.log(`audit:verify: ${entries} entries in ${chains} chains; every chain holds.`);
      return;
    }
    console.error(`audit:verify: ${entries} entries in ${chains} chains; ${broken.length} broken:`);
    for (const link of broken) {
      console.error(`  ${link.kind} ${link.recordId}: entry #${link.seq} (${link.entryId}): ${link.reason}`);
    }
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
