/**
 * The waiting work, the daily reminders and the notices read from the registered kinds (issue 39,
 * docs/decisions/060-record-kinds.md): a kind registered here and nowhere else, a "widget", is on
 * the dashboard's "Waiting on me" through its `waiting` (the page's HTML), is reminded by the daily
 * run (GET /api/auto_reminder and the job) through its `reminders` in the run's transaction with
 * its summary in the run's message, and its notices are labelled and linked through `notices` and
 * `page`. The MOC's and PCR's own entries give their pending steps and signatures as waiting work,
 * while the dashboard keeps their sections of its own.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADVISORY_LOCKS } from "#db/advisory-locks";
import { runDailyReminder } from "#jobs/reminder";
import { formatDate } from "~/components/moc";
import { listNotifications, markNotificationRead } from "~/models/messages/notifications.server";
import { pendingActions } from "~/models/moc/actions.server";
import { waitingWork } from "~/models/overview/waiting-work.server";
import { pendingPcrSignatures } from "~/models/pcr/pcr-signing.server";
import type { PublicUser } from "~/models/people/user.server";
import {
  defineRecordKind,
  registerRecordKinds,
  unregisterRecordKind,
  type ReminderOutcome,
  type WaitingItem,
} from "~/models/record-kind/record-kind";
import * as dashboardPage from "~/routes/_index";
import * as autoReminderRoute from "~/routes/api+/auto_reminder";
import { getDb, type Executor } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { createMocOk, makeCast, tokenOf } from "../helpers/moc-flow";
import { page } from "../helpers/page";
import { pageHtml } from "../helpers/page-html";
import { createPcrOk } from "../helpers/pcr";

const WIDGET = "test-widget";
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What the widget's entry was asked, to show who asks it and how. */
const asked: { waiting: { actorId: string; limit?: number; today: string }[]; reminders: string[] } = {
  waiting: [],
  reminders: [],
};
/** The widget lines waiting on each reader. */
const widgetsWaitingOn = new Map<string, WaitingItem[]>();
/** The days the widget's reminders claimed (a second run of a day reminds nothing, as every kind's). */
const claimedDays = new Set<string>();
/** Whether the widget's reminders ran in a transaction holding the daily run's lock. */
const inTheRunsLock: boolean[] = [];

/** Whether `tx` holds the daily run's advisory lock (a bigint key: its low 32 bits are `objid`). */
async function holdsReminderLock(tx: Executor): Promise<boolean> {
  const [row] = await tx.execute<{ held: boolean }>(sql`
    select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
      and classid = 0 and objid = ${ADVISORY_LOCKS.reminders}) as held`);
  return row!.held;
}

const WIDGET_KIND = defineRecordKind({
  name: WIDGET,
  label: "Widget",
  page: (id) => `/widgets/${id}`,
  audit: { chain: WIDGET, log: { table: "audit_entries" }, note: null, stateProblems: null },
  notices: { labelSql: (id) => sql`('Widget ' || left(${id}::text, 8))`, titleSql: () => sql`null::text` },
  async waiting(actor, options) {
    asked.waiting.push({ actorId: actor._id, limit: options.limit, today: options.today });
    const items = widgetsWaitingOn.get(actor._id) ?? [];
    return { items: items.slice(0, options.limit), total: items.length };
  },
  async reminders(tx, day): Promise<ReminderOutcome> {
    asked.reminders.push(day);
    inTheRunsLock.push(await holdsReminderLock(tx));
    if (claimedDays.has(day)) return { summary: null, emails: 0 };
    claimedDays.add(day);
    return { summary: "1 widget calibration reminded", emails: 3 };
  },
});

beforeAll(() => registerRecordKinds([WIDGET_KIND]));
afterAll(() => unregisterRecordKind(WIDGET));

/** React's markers between adjacent text nodes left out, so a line reads as the browser shows it. */
const textOf = (html: string) => html.replace(/<!-- -->/g, "");

type Dashboard = { otherWaiting: { kind: string; total: number; items: WaitingItem[] }[] };

describe("a kind's waiting work on the dashboard", () => {
  it("shows every line of a kind without a section of its own, with its link, wait, due day, flag and detail", async () => {
    const reader = await makeUser();
    const now = Date.now();
    const dueOn = isoDay(now - DAY_MS);
    const widgetId = randomUUID();
    widgetsWaitingOn.set(reader._id, [
      {
        kind: WIDGET,
        recordId: widgetId,
        text: "Widget W-7: calibrate the gauge",
        path: `/widgets/${widgetId}`,
        waitingSince: new Date(now - 3 * DAY_MS).toISOString(),
        dueOn,
        badge: { text: "Returned by QA", tone: "danger" },
        detail: "The deck 3 pressure gauge",
      },
    ]);

    const html = textOf(await pageHtml(dashboardPage, reader, "/"));
    expect(html).toContain(`href="/widgets/${widgetId}">Widget W-7: calibrate the gauge</a>`);
    expect(html).toContain(`<span class="badge badge-danger">Returned by QA</span>`);
    expect(html).toContain(`<span class="muted">The deck 3 pressure gauge</span>`);
    expect(html).toContain("<span>Waiting 3 days</span>");
    expect(html).toContain(`<span class="overdue">Due ${formatDate(dueOn)} (overdue)</span>`);
    expect(html).not.toContain("Nothing is waiting on you right now.");
    // The entry was asked for the reader, with the dashboard's limit and today.
    expect(asked.waiting.filter((a) => a.actorId === reader._id)).toEqual([
      { actorId: reader._id, limit: 20, today: isoDay(Date.now()) },
    ]);

    // Someone the widget waits not on: nothing of it, and nothing else either.
    const other = await makeUser();
    const empty = textOf(await pageHtml(dashboardPage, other, "/"));
    expect(empty).not.toContain("/widgets/");
    expect(empty).toContain("Nothing is waiting on you right now.");
  });

  it("keeps the MOC and PCR sections its own: their work is not shown twice, and more lines than shown say so", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast); // waits on its implementer
    const lines = Array.from({ length: 23 }, (_, i): WaitingItem => {
      const id = randomUUID();
      return {
        kind: WIDGET,
        recordId: id,
        text: `Widget ${i}: inspect`,
        path: `/widgets/${id}`,
        waitingSince: null,
        dueOn: null,
        badge: null,
        detail: null,
      };
    });
    widgetsWaitingOn.set(cast.implementer._id, lines);

    const data = (await page(dashboardPage, cast.implementer, { path: "/" })).body as Dashboard;
    expect(data.otherWaiting.map((w) => [w.kind, w.total, w.items.length])).toEqual([[WIDGET, 23, 20]]);
    const html = textOf(await pageHtml(dashboardPage, cast.implementer, "/"));
    // The MOC's step once, in its own section (its part and target date).
    expect(html.split(`href="/mocs/${moc._id}/`).length - 1).toBe(1);
    expect(html).toContain(`/implementer">MOC ${moc.serial_num}: Part B (implementer assessment)</a>`);
    expect(html).toContain("Target ");
    expect(html.split(`href="/widgets/`).length - 1).toBe(20);
    expect(html).toContain("These are the first 20 of the 23 Widget items waiting on you.");
  });

  it("the MOC's and PCR's entries give their pending steps and signatures as lines", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const pcr = await createPcrOk(cast.originator);
    const today = isoDay(Date.now());

    const [mocWork] = await waitingWork(cast.implementer, { today, except: ["pcr", WIDGET] });
    const steps = await pendingActions(cast.implementer);
    expect(mocWork).toMatchObject({ kind: "moc", label: "MOC", total: steps.total });
    expect(mocWork!.items.map((i) => i.recordId)).toEqual(steps.actions.map((a) => a.moc._id));
    const line = mocWork!.items.find((i) => i.recordId === moc._id)!;
    expect(line).toMatchObject({ kind: "moc", path: `/mocs/${moc._id}/implementer`, dueOn: moc.target_date });
    expect(line.text).toBe(`MOC ${moc.serial_num}: Part B (implementer assessment)`);

    const [pcrWork] = await waitingWork(cast.originator, { today, limit: 1, except: ["moc", WIDGET] });
    const signatures = await pendingPcrSignatures(cast.originator);
    expect(signatures.map((s) => s.pcrId)).toContain(pcr._id);
    expect(pcrWork).toMatchObject({ kind: "pcr", label: "PCR", total: signatures.length });
    expect(pcrWork!.items).toEqual([
      {
        kind: "pcr",
        recordId: signatures[0]!.pcrId,
        text: `PCR ${signatures[0]!.serialNum}: your signature as ${signatures[0]!.role}`,
        path: `/pcrs/${signatures[0]!.pcrId}`,
        waitingSince: signatures[0]!.waitingSince,
        dueOn: null,
        badge: null,
        detail: null,
      },
    ]);
  });
});

describe("a kind's part of the daily run", () => {
  let admin: PublicUser;
  beforeAll(async () => {
    admin = await makeAdmin();
  });

  it("GET /api/auto_reminder runs it in the run's transaction and joins its summary to the MOC's", async () => {
    const today = isoDay(Date.now());
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    await getDb().execute(sql`
      update mocs set target_date = ${today}::date + 1, created_at = now() - interval '5 days' where id = ${moc._id}`);

    const res = await api(autoReminderRoute, { path: "/api/auto_reminder", token: await tokenOf(admin) });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["message", "results", "totalReminders"]);
    expect(res.body.results).toEqual([
      { moc_id: moc._id, serial_num: moc.serial_num, urgency: "URGENT", emailsSent: 2 },
    ]);
    expect(res.body.message).toBe(`Sent 2 reminder emails about 1 MOC for ${today}; 1 widget calibration reminded`);
    expect(asked.reminders.at(-1)).toBe(today);
    expect(inTheRunsLock.at(-1)).toBe(true);

    // Again the same day: every kind has claimed its day, and the run says nothing was due.
    const again = await api(autoReminderRoute, { path: "/api/auto_reminder", token: await tokenOf(admin) });
    expect(again.body).toEqual({
      message: `No reminders due for ${today} (nothing due, or already reminded today)`,
      totalReminders: 0,
      results: [],
    });
    expect(asked.reminders.filter((d) => d === today)).toHaveLength(2);
  });

  it("the daily job runs it once a day and counts its emails", async () => {
    const day = "2044-02-03";
    const outcome = await runDailyReminder(new Date(`${day}T08:00:30Z`));
    expect(outcome).toMatchObject({ ran: true, day, totalReminders: 0, emailsSent: 3 });
    expect(asked.reminders.filter((d) => d === day)).toEqual([day]);
    expect(inTheRunsLock.at(-1)).toBe(true);
    // A repeated job of the same day does not run the kinds again.
    expect((await runDailyReminder(new Date(`${day}T09:00:00Z`))).ran).toBe(false);
    expect(asked.reminders.filter((d) => d === day)).toEqual([day]);
  });
});

describe("a kind's notices", () => {
  it("are labelled by its notices.labelSql and lead to its page; a MOC's as before", async () => {
    const reader = await makeUser();
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const widgetId = randomUUID();
    const [widgetNotice, mocNotice, general] = await Promise.all(
      [
        { type: WIDGET, id: widgetId },
        { type: "moc", id: moc._id },
        { type: null, id: null },
      ].map(async (record, i) => {
        const [row] = await getDb().execute<{ id: string }>(sql`
          insert into email_messages (to_email, to_user_id, subject, html, text, status, record_type, record_id, created_at)
          values (${reader.email}, ${reader._id}, ${`Notice ${i}`}, '<p>Hi</p>', 'Hi', 'queued', ${record.type},
            ${record.id}::uuid, now() - make_interval(mins => ${i}::int))
          returning id`);
        return row!.id;
      }),
    );

    const { notifications } = await listNotifications(reader);
    expect(notifications.map((n) => [n.id, n.recordType, n.recordLabel, n.link])).toEqual([
      [widgetNotice, WIDGET, `Widget ${widgetId.slice(0, 8)}`, `/widgets/${widgetId}`],
      [mocNotice, "moc", `MOC ${moc.serial_num}`, `/mocs/${moc._id}`],
      [general, null, null, null],
    ]);
    expect(await markNotificationRead(reader, widgetNotice!)).toEqual({ link: `/widgets/${widgetId}` });
    expect(await markNotificationRead(reader, mocNotice!)).toEqual({ link: `/mocs/${moc._id}` });
  });
});
