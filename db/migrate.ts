import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import path from "node:path";
import postgres from "postgres";
import { ADVISORY_LOCKS } from "./advisory-locks";
import { syncDerivedObjects } from "./derived";
import { projectRoot } from "./project-root";

// From the project root: this module also runs bundled into build/server (db/project-root.ts).
const migrationsFolder = path.join(projectRoot(import.meta.url), "db/migrations");
const MIGRATION_LOCK = ADVISORY_LOCKS.migrations;

/**
 * Applies pending migrations, then recreates the derived objects (db/derived.ts) if their definition
 * changed. Several instances starting at once take turns on an advisory lock.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(sql), { migrationsFolder });
    await syncDerivedObjects(sql);
  } finally {
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    await sql.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("db:migrate needs DATABASE_URL (npm start migrates the embedded database itself)");
    process.exit(1);
  }
  // Not a top-level await: this module is also bundled into the server build, whose target has none.
  migrateDatabase(url).then(
    () => console.log("migrations applied"),
    (error: unknown) => {
      console.error(`migrations not applied: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
