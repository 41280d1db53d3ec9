/**
 * A separate process running one reminder run, for "two instances at once" tests:
 * `node --import tsx tests/helpers/run-reminders.ts <YYYY-MM-DD> [model|job]`. It connects and
 * starts pg-boss, prints "ready", waits for a line on stdin (so two processes start together),
 * runs, prints the outcome as one JSON line and exits.
 */
import { createInterface } from "node:readline";
// The app's record kinds, as every entry point registers them (docs/decisions/060-record-kinds.md).
import "~/models/kinds/record-kinds.server";
import { closeDb, getDb } from "#db/client";
import { sql } from "drizzle-orm";
import { startBoss, stopBoss } from "#jobs/boss";
import { runDailyReminder } from "#jobs/reminder";
import { sendDueReminders } from "./reminder-run";

const [day, mode = "model"] = process.argv.slice(2);
if (!day) throw new Error("usage: run-reminders.ts <YYYY-MM-DD> [model|job]");

await startBoss();
await getDb().execute(sql`select 1`);
console.log("ready");
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once("line", () => resolve()));
lines.close();
const outcome =
  mode === "job" ? await runDailyReminder(new Date(`${day}T08:00:30Z`)) : await sendDueReminders({ today: day });
console.log(JSON.stringify(outcome));
await stopBoss();
await closeDb();
