/**
 * The process's Prometheus metrics (prom-client), served at GET /metrics (app/server/observability.ts).
 * Counters count what this process did; the gauges read at each scrape (database connections,
 * job queues) are read from the database and so are the same on every instance.
 * docs/architecture.md, "Operations", lists every family.
 */
import { sql } from "drizzle-orm";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { getDb, poolSize } from "~/utils/db.server";

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const http = {
    requests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer an HTTP request (to the last byte), by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
  new Gauge({
    name: "cm_db_pool_max_connections",
    help: "The most connections this process's database pool opens (DATABASE_POOL_SIZE)",
    registers: [registry],
    collect() {
      this.set(poolSize());
    },
  });
  new Gauge({
    name: "cm_db_connections",
    help: "Connections to the app's database by application (web pool, jobs, backup) and state, all instances",
    labelNames: ["application", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await getDb()
        .execute<{ application: string; state: string; n: number }>(
          sql`select application_name as application, coalesce(state, 'unknown') as state, count(*)::int as n
            from pg_stat_activity where datname = current_database() and application_name like 'change-management%'
            group by 1, 2`,
        )
        .catch(() => []);
      for (const row of rows) this.set({ application: row.application, state: row.state }, row.n);
    },
  });
  new Gauge({
    name: "cm_jobs",
    help: "pg-boss jobs by queue and state (created, retry, active, completed, cancelled, failed), all instances",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await getDb()
        .execute<{ queue: string; state: string; n: number }>(
          sql`select name as queue, state::text as state, count(*)::int as n from pgboss.job group by 1, 2`,
        )
        .catch(() => []);
      for (const row of rows) this.set({ queue: row.queue, state: row.state }, row.n);
    },
  });
  const emails = new Counter({
    name: "cm_emails_total",
    help: "Emails handled by this process's email worker: sent, deferred (the mail API's 429), retried, failed for good",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  for (const outcome of ["sent", "deferred", "retry", "failed"]) emails.inc({ outcome }, 0);
  const reminders = {
    runs: new Counter({
      name: "cm_reminder_runs_total",
      help: "Reminder runs in this process: ran, already-ran (the day was done), failed",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    reminders: new Counter({
      name: "cm_reminders_total",
      help: "MOC reminders sent by reminder runs in this process",
      registers: [registry],
    }),
    emails: new Counter({
      name: "cm_reminder_emails_total",
      help: "Emails queued by reminder runs in this process",
      registers: [registry],
    }),
  };
  const audit = {
    runs: new Counter({
      name: "cm_audit_verifications_total",
      help: "Audit trail verifications in this process, by result (holds, broken)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    broken: new Gauge({
      name: "cm_audit_broken_chains",
      help: "Broken chains found by the last audit verification in this process",
      registers: [registry],
    }),
    entries: new Gauge({
      name: "cm_audit_entries_verified",
      help: "Entries checked by the last audit verification in this process",
      registers: [registry],
    }),
    last: new Gauge({
      name: "cm_audit_last_verification_timestamp_seconds",
      help: "When this process last verified the audit trail",
      registers: [registry],
    }),
  };
  const backups = {
    runs: new Counter({
      name: "cm_backups_total",
      help: "Scheduled backups taken by this process, by result (ok, failed)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    last: new Gauge({
      name: "cm_backup_last_success_timestamp_seconds",
      help: "When this process last finished a backup",
      registers: [registry],
    }),
    bytes: new Gauge({ name: "cm_backup_last_bytes", help: "Size of the last backup file", registers: [registry] }),
  };
  // Every labelled family shows its series from the start, at zero.
  for (const outcome of ["ran", "already-ran", "failed"]) reminders.runs.inc({ outcome }, 0);
  for (const result of ["holds", "broken"]) audit.runs.inc({ result }, 0);
  for (const result of ["ok", "failed"]) backups.runs.inc({ result }, 0);
  return { registry, http, emails, reminders, audit, backups };
}

export type Metrics = ReturnType<typeof create>;

// On globalThis: a process that loads this module twice (the dev server's reloads) keeps one registry.
const holder = globalThis as typeof globalThis & { __cmMetrics?: Metrics };

export function metrics(): Metrics {
  holder.__cmMetrics ??= create();
  return holder.__cmMetrics;
}

export function countEmails(outcome: "sent" | "deferred" | "retry" | "failed", n = 1): void {
  if (n > 0) metrics().emails.inc({ outcome }, n);
}

export function countReminderRun(
  outcome: "ran" | "already-ran" | "failed",
  counts: { reminders?: number; emails?: number } = {},
) {
  const m = metrics().reminders;
  m.runs.inc({ outcome });
  if (counts.reminders) m.reminders.inc(counts.reminders);
  if (counts.emails) m.emails.inc(counts.emails);
}

export function countAuditVerification(result: { entries: number; broken: unknown[] }): void {
  const m = metrics().audit;
  m.runs.inc({ result: result.broken.length ? "broken" : "holds" });
  m.broken.set(result.broken.length);
  m.entries.set(result.entries);
  m.last.set(Date.now() / 1000);
}

export function countBackup(result: { ok: true; bytes: number } | { ok: false }): void {
  const m = metrics().backups;
  m.runs.inc({ result: result.ok ? "ok" : "failed" });
  if (result.ok) {
    m.last.set(Date.now() / 1000);
    m.bytes.set(result.bytes);
  }
}
