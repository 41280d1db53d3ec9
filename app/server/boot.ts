/**
 * What the web process and the worker process both do at start (environment, database,
 * migrations, pg-boss and its workers), and undo at stop.
 */
// The app's record kinds, registered before anything reads them (docs/decisions/060-record-kinds.md).
import "~/models/kinds/record-kinds.server";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { migrateDatabase } from "#db/migrate";
import { superuserRefusal, superuserRole } from "#db/role";
import { startBackupSchedule } from "#jobs/backup";
import { startBoss, stopBoss } from "#jobs/boss";
import { startWorkers } from "#jobs/workers";
import { adoptAuditChains } from "~/models/audit/audit-chain.server";
import { importUploadFolder } from "~/models/records/uploads-import.server";
import { adoptAccountRecords, ensureFirstAdmin } from "~/models/people/user.server";
import { closeDb } from "~/utils/db.server";
import { env as readEnv, EnvError, resetEnv, type Env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { loadDevelopmentSecrets } from "./secrets";

export type Services = { env: Env; stop: () => Promise<void> };

export async function bootServices(options: { role: "web" | "worker" }): Promise<Services | null> {
  let env: Env;
  try {
    env = readEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exitCode = 1;
      return null;
    }
    throw error;
  }
  const log = logger();
  log.info({ node: process.version, role: options.role }, `starting on Node ${process.version}`);

  // Without SESSION_SECRET / AUDIT_KEY: the development secrets every script reads too.
  await loadDevelopmentSecrets(env.DATA_DIR, { create: true });

  let embedded: EmbeddedDatabase | undefined;
  if (!env.DATABASE_URL) {
    if (options.role === "worker") {
      console.error("npm run worker needs DATABASE_URL: workers share the web process's database");
      process.exitCode = 1;
      return null;
    }
    embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, log: (message) => log.info(message) });
    process.env.DATABASE_URL = embedded.url;
  }
  // Re-read: SESSION_SECRET / DATABASE_URL may have just been filled in.
  resetEnv();
  env = readEnv();

  // docs/decisions/025-keyed-audit-chain.md: never as a database superuser in production.
  const superuser = env.NODE_ENV === "production" ? await superuserRole(process.env.DATABASE_URL!) : null;
  if (superuser) {
    console.error(superuserRefusal(superuser));
    process.exitCode = 1;
    await embedded?.stop();
    return null;
  }

  try {
    await migrateDatabase(process.env.DATABASE_URL!);
    log.info("database migrations applied");
    if (options.role === "web") {
      const adopted = await adoptAuditChains();
      if (adopted) log.info({ chains: adopted }, "audit chains written before AUDIT_KEY now have keyed heads");
      const recorded = await adoptAccountRecords();
      if (recorded) log.info({ accounts: recorded }, "accounts older than their audit trail are now recorded in it");
      const moved = await importUploadFolder(env.DATA_DIR);
      if (moved.imported || moved.skipped.length) {
        log.info(moved, `moved ${moved.imported} file(s) from DATA_DIR/uploads into the database`);
      }
      const admin = await ensureFirstAdmin({ email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD });
      if (admin?.password) {
        // Printed once, to the console only: never to the structured log.
        console.log(
          `\nFirst admin created. Sign in with:\n  email:    ${admin.email}\n  password: ${admin.password}\nChange the password after signing in (Profile).\n`,
        );
      } else if (admin) {
        console.log(`\nFirst admin created: ${admin.email} (password from ADMIN_PASSWORD)\n`);
      }
    }
  } catch (error) {
    await closeDb();
    await embedded?.stop();
    throw error;
  }

  try {
    // WORKERS=off: a web process that only sends jobs, for deployments with `npm run worker`
    // beside it (docs/deployment.md).
    const workers = options.role === "worker" || env.WORKERS === "on";
    if (workers) await startWorkers();
    else await startBoss();
    await startBackupSchedule({ embedded: Boolean(embedded), work: workers });
  } catch (error) {
    await stopBoss().catch(() => {});
    await closeDb();
    await embedded?.stop();
    throw error;
  }

  return {
    env,
    async stop() {
      // Workers first (they finish their job in hand), then the pool, then the database.
      await stopBoss();
      await closeDb();
      await embedded?.stop();
    },
  };
}
