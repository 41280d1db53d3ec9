/** What /admin shows of backups (docs/decisions/030-backups.md): the last one, recent runs, the schedule. */
import { desc } from "drizzle-orm";
import { backupRuns } from "#db/schema";
import type { BackupSchedule } from "#jobs/backup";
import { getDb } from "~/utils/db.server";

/** The schedule this process runs (jobs/backup.ts sets it at boot; read here without loading the job). */
const backupSchedule = () =>
  (globalThis as typeof globalThis & { __cmBackupSchedule?: BackupSchedule }).__cmBackupSchedule;

export type BackupRunView = {
  id: string;
  trigger: "schedule" | "command";
  status: "ok" | "failed";
  finishedAt: string;
  file: string | null;
  bytes: number | null;
  error: string | null;
};

export async function backupOverview() {
  const runs = await getDb()
    .select({
      id: backupRuns.id,
      trigger: backupRuns.trigger,
      status: backupRuns.status,
      finishedAt: backupRuns.finishedAt,
      file: backupRuns.file,
      bytes: backupRuns.bytes,
      error: backupRuns.error,
    })
    .from(backupRuns)
    .orderBy(desc(backupRuns.finishedAt))
    .limit(10);
  const views: BackupRunView[] = runs.map((r) => ({
    ...r,
    finishedAt: r.finishedAt.toISOString(),
    file: r.file ? r.file.split("/").pop()! : null,
  }));
  return {
    last: views.find((r) => r.status === "ok") ?? null,
    runs: views,
    schedule: backupSchedule() ?? null,
  };
}
