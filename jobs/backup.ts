/**
 * The scheduled backup (docs/decisions/030-backups.md): with BACKUP_SCHEDULE=auto (the default) it
 * runs when the app uses its embedded database, on BACKUP_CRON (02:30 UTC), into BACKUP_DIR
 * (DATA_DIR/backups), keeping the newest backup of each of the last BACKUP_KEEP_DAILY days and of
 * each of the last BACKUP_KEEP_WEEKLY ISO weeks. pg-boss fires each tick once across instances.
 * With DATABASE_URL, the database server's own backups are the usual way; BACKUP_SCHEDULE=on
 * takes these as well (on whichever instance picks the job: point BACKUP_DIR at shared storage).
 */
import fs from "node:fs/promises";
import path from "node:path";
import { BackupError, writeBackup } from "#db/backup";
import { getDb } from "#db/client";
import { backupRuns } from "#db/schema";
import { signingKey } from "~/models/audit/audit-chain.server";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { countBackup } from "~/utils/metrics.server";
import { startBoss, withSetupLock } from "./boss";

export const BACKUP_QUEUE = "daily-backup";

const NAME = /^cm-backup-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.cmbackup$/;

export type BackupSchedule = { enabled: boolean; cron: string; dir: string; keepDaily: number; keepWeekly: number };

const holder = globalThis as typeof globalThis & { __cmBackupSchedule?: BackupSchedule };

/** This process's schedule (for /admin), once startBackupSchedule ran. */
export function backupSchedule(): BackupSchedule | undefined {
  return holder.__cmBackupSchedule;
}

export function backupFileName(at: Date): string {
  return `cm-backup-${at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "")}.cmbackup`;
}

function timeOf(name: string): Date | null {
  const m = NAME.exec(name);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}

/** The ISO week of a date, as "YYYY-Www". */
function isoWeek(date: Date): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

/**
 * Which backup files to keep: the newest of each of the `daily` most recent days that have one,
 * and the newest of each of the `weekly` most recent ISO weeks. Files not named as backups are
 * never touched.
 */
export function backupsToKeep(names: string[], keepDaily: number, keepWeekly: number): Set<string> {
  const dated = names
    .map((name) => ({ name, at: timeOf(name) }))
    .filter((f): f is { name: string; at: Date } => f.at !== null)
    .sort((a, b) => b.at.getTime() - a.at.getTime());
  const keep = new Set<string>();
  const pick = (key: (d: Date) => string, count: number) => {
    const seen = new Set<string>();
    for (const file of dated) {
      const k = key(file.at);
      if (seen.has(k)) continue;
      if (seen.size >= count) break;
      seen.add(k);
      keep.add(file.name);
    }
  };
  pick((d) => d.toISOString().slice(0, 10), keepDaily);
  pick(isoWeek, keepWeekly);
  return keep;
}

/** Deletes the backups the retention does not keep, and leftovers of interrupted ones. */
export async function pruneBackups(dir: string, keepDaily: number, keepWeekly: number): Promise<string[]> {
  const names = await fs.readdir(dir);
  const keep = backupsToKeep(names, keepDaily, keepWeekly);
  const removed: string[] = [];
  for (const name of names) {
    const stale = name.endsWith(".cmbackup.partial") && timeOf(name.replace(/\.partial$/, ""));
    if ((NAME.test(name) && !keep.has(name)) || stale) {
      // A partial file of a backup still being written is at most minutes old.
      if (stale && Date.now() - (await fs.stat(path.join(dir, name))).mtimeMs < 6 * 3600_000) continue;
      await fs.rm(path.join(dir, name), { force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** Records a backup's outcome where every instance's /admin sees it. */
export async function recordBackup(run: typeof backupRuns.$inferInsert): Promise<void> {
  await getDb().insert(backupRuns).values(run);
}

/** Takes one backup into the schedule's folder, records it, applies the retention. */
export async function runScheduledBackup(schedule: BackupSchedule, now = new Date()): Promise<string> {
  const startedAt = new Date();
  const file = path.join(schedule.dir, backupFileName(now));
  try {
    await fs.mkdir(schedule.dir, { recursive: true, mode: 0o700 });
    const done = await writeBackup(process.env.DATABASE_URL!, file, signingKey());
    await recordBackup({ trigger: "schedule", status: "ok", startedAt, file, bytes: done.bytes, sha256: done.sha256 });
    countBackup({ ok: true, bytes: done.bytes });
    const removed = await pruneBackups(schedule.dir, schedule.keepDaily, schedule.keepWeekly);
    logger().info({ file, bytes: done.bytes, rows: done.rows, ms: done.ms, removed }, "backup written");
    return file;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    countBackup({ ok: false });
    logger().error({ err: error, file }, "backup failed");
    await recordBackup({ trigger: "schedule", status: "failed", startedAt, file, error: message }).catch(() => {});
    if (error instanceof BackupError) return file;
    throw error;
  }
}

/**
 * Creates the backup queue and, when backups are on, its schedule and (where this process runs
 * the workers) its worker;
 * when off, removes the schedule (every instance must run with the same BACKUP_* settings).
 */
export async function startBackupSchedule(options: { embedded: boolean; work: boolean }): Promise<BackupSchedule> {
  const config = env();
  const schedule: BackupSchedule = {
    enabled: config.BACKUP_SCHEDULE === "on" || (config.BACKUP_SCHEDULE === "auto" && options.embedded),
    cron: config.BACKUP_CRON,
    dir: path.resolve(config.BACKUP_DIR ?? path.join(config.DATA_DIR, "backups")),
    keepDaily: config.BACKUP_KEEP_DAILY,
    keepWeekly: config.BACKUP_KEEP_WEEKLY,
  };
  holder.__cmBackupSchedule = schedule;
  const boss = await startBoss();
  // Under pg-boss's set-up lock, like the other queues: processes creating one queue at the same
  // time deadlock (jobs/boss.ts).
  await withSetupLock(async () => {
    // One backup at a time; one that has not finished within the hour is given up (and retried).
    await boss.createQueue(BACKUP_QUEUE, {
      policy: "singleton",
      retryLimit: 2,
      retryDelay: 600,
      expireInSeconds: 3600,
    });
    if (schedule.enabled) await boss.schedule(BACKUP_QUEUE, schedule.cron, {}, { tz: "UTC" });
    else await boss.unschedule(BACKUP_QUEUE);
  });
  if (!schedule.enabled || !options.work) return schedule;
  await boss.work(BACKUP_QUEUE, { batchSize: 1, pollingIntervalSeconds: 30 }, async () => {
    await runScheduledBackup(schedule);
  });
  logger().info({ cron: schedule.cron, dir: schedule.dir }, "scheduled backups on");
  return schedule;
}
