/**
 * The scheduled backup (jobs/backup.ts): its file lands in the folder and checks out, its run is
 * recorded and shown on /admin with its size, a failure is shown too, and the retention keeps the
 * newest of each of the last 7 days and 4 weeks (configurable) and removes the rest; the schedule
 * is on by default with the embedded database only, and BACKUP_* set it.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { verifyBackupFile } from "#db/backup";
import {
  BACKUP_QUEUE,
  backupFileName,
  backupsToKeep,
  pruneBackups,
  runScheduledBackup,
  startBackupSchedule,
  type BackupSchedule,
} from "#jobs/backup";
import { startBoss, stopBoss } from "#jobs/boss";
import { auditKeys } from "~/models/audit/audit-chain.server";
import * as adminRoute from "~/routes/admin+/_index";
import { getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { buildRequest } from "../helpers/request";

const dir = mkdtempSync(path.join(tmpdir(), "cm-backups-"));
afterAll(async () => {
  await stopBoss();
  rmSync(dir, { recursive: true, force: true });
});

const schedule = (overrides: Partial<BackupSchedule> = {}): BackupSchedule => ({
  enabled: true,
  cron: "30 2 * * *",
  dir,
  keepDaily: 7,
  keepWeekly: 4,
  ...overrides,
});

async function adminPage(user: { _id: string }) {
  const request = await buildRequest({ path: "/admin", token: await tokenFor(user as never), cookie: true });
  return adminRoute.loader({ request, params: {}, context: {} });
}

describe("scheduled backups", () => {
  it("writes a whole backup into the folder, records it, and /admin shows it with its size", async () => {
    const file = await runScheduledBackup(schedule(), new Date("2031-05-06T02:30:00Z"));
    expect(path.basename(file)).toBe("cm-backup-20310506T023000Z.cmbackup");
    const checked = await verifyBackupFile(file, { keys: auditKeys() });
    expect(checked.manifest.tables.map((t) => `${t.schema}.${t.name}`)).toContain("public.backup_runs");

    const page = await adminPage(await makeAdmin());
    expect(page.last).toMatchObject({ status: "ok", trigger: "schedule", file: path.basename(file) });
    expect(page.last!.bytes).toBeGreaterThan(1000);
    await expect(adminPage(await makeUser())).rejects.toMatchObject({ init: { status: 403 } });
  });

  it("records a failed backup, which /admin shows as the latest run beside the last good one", async () => {
    const blocked = path.join(dir, "not-a-folder");
    writeFileSync(blocked, "x");
    await expect(runScheduledBackup(schedule({ dir: blocked }))).rejects.toThrow();
    const page = await adminPage(await makeAdmin());
    expect(page.runs[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/EEXIST|ENOTDIR/) });
    expect(page.last?.status).toBe("ok");
    await getDb().execute(sql`delete from backup_runs where status = 'failed'`);
    rmSync(blocked);
  });

  it("keeps the newest of each of the last 7 days and 4 ISO weeks, and removes the rest", async () => {
    // Two backups a day for 60 days, newest first: 2031-03-31 back to 2031-01-31.
    const names: string[] = [];
    for (let day = 0; day < 60; day++) {
      for (const hour of [2, 14]) names.push(backupFileName(new Date(Date.UTC(2031, 2, 31 - day, hour, 30))));
    }
    const keep = backupsToKeep(names, 7, 4);
    const days = [...keep].map((n) => n.slice(10, 18)).sort();
    // 7 days (the 14:30 one of each) plus the newest of 4 ISO weeks. 2031-03-31 is a Monday: the
    // weeks are its own and those ending on Sundays 03-30 (both kept as dailies), 03-23 and 03-16.
    expect([...keep].every((n) => n.includes("T1430"))).toBe(true);
    expect(days).toEqual([
      "20310316",
      "20310323",
      "20310325",
      "20310326",
      "20310327",
      "20310328",
      "20310329",
      "20310330",
      "20310331",
    ]);
    expect(backupsToKeep(names, 2, 0).size).toBe(2);

    const folder = mkdtempSync(path.join(dir, "prune-"));
    for (const name of names) writeFileSync(path.join(folder, name), "x");
    writeFileSync(path.join(folder, "notes.txt"), "operator's file");
    const removed = await pruneBackups(folder, 7, 4);
    expect(removed).toHaveLength(names.length - keep.size);
    expect(readdirSync(folder).sort()).toEqual([...keep, "notes.txt"].sort());
  });

  it("is scheduled daily with the embedded database by default, not with DATABASE_URL unless asked, and BACKUP_* set it", async () => {
    const boss = await startBoss();
    const scheduled = async () =>
      (await boss.getSchedules(BACKUP_QUEUE)).map((s) => ({ cron: s.cron, tz: s.timezone }));
    const saved = { ...process.env };
    const set = (vars: Record<string, string | undefined>) => {
      for (const [key, value] of Object.entries(vars)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      resetEnv();
    };
    try {
      set({ BACKUP_SCHEDULE: undefined, BACKUP_CRON: undefined, BACKUP_DIR: undefined, DATA_DIR: dir });
      const embedded = await startBackupSchedule({ embedded: true, work: false });
      expect(embedded).toMatchObject({ enabled: true, cron: "30 2 * * *", keepDaily: 7, keepWeekly: 4 });
      expect(embedded.dir).toBe(path.join(dir, "backups"));
      expect(await scheduled()).toEqual([{ cron: "30 2 * * *", tz: "UTC" }]);

      // The app on DATABASE_URL: off by default (the server's own backups), and the schedule is removed.
      expect(await startBackupSchedule({ embedded: false, work: false })).toMatchObject({ enabled: false });
      expect(await scheduled()).toEqual([]);

      set({ BACKUP_SCHEDULE: "on", BACKUP_CRON: "15 3 * * *", BACKUP_KEEP_DAILY: "3", BACKUP_KEEP_WEEKLY: "0" });
      expect(await startBackupSchedule({ embedded: false, work: false })).toMatchObject({
        enabled: true,
        keepDaily: 3,
        keepWeekly: 0,
      });
      expect(await scheduled()).toEqual([{ cron: "15 3 * * *", tz: "UTC" }]);

      set({ BACKUP_SCHEDULE: "off" });
      expect(await startBackupSchedule({ embedded: true, work: false })).toMatchObject({ enabled: false });
      expect(await scheduled()).toEqual([]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      resetEnv();
    }
  });
});
