/**
 * GET /readyz: whether this instance can serve (docs/architecture.md, "Operations"): the database
 * answers, and every migration this release ships is applied (a load balancer keeps an instance
 * out while another release's migrations are still running, or the database is unreachable).
 * GET /healthz says only that the process is alive.
 */
import { sql } from "drizzle-orm";
import journal from "#db/migrations/meta/_journal.json";
import { getDb } from "~/utils/db.server";

export type Readiness = {
  ready: boolean;
  database: "ok" | "unavailable";
  migrations: "current" | "pending" | "unknown";
  /** Migrations this release ships that the database lacks. */
  pending?: number;
};

const SHIPPED = (journal as { entries: { when: number }[] }).entries.map((entry) => entry.when);

export async function readiness(): Promise<Readiness> {
  let applied: number[];
  try {
    const rows = await getDb().execute<{ created_at: string }>(
      sql`select created_at::text as created_at from drizzle.__drizzle_migrations`,
    );
    applied = [...rows].map((row) => Number(row.created_at));
  } catch {
    try {
      await getDb().execute(sql`select 1`);
    } catch {
      return { ready: false, database: "unavailable", migrations: "unknown" };
    }
    return { ready: false, database: "ok", migrations: "unknown" };
  }
  const have = new Set(applied);
  const pending = SHIPPED.filter((when) => !have.has(when)).length;
  return pending
    ? { ready: false, database: "ok", migrations: "pending", pending }
    : { ready: true, database: "ok", migrations: "current" };
}
