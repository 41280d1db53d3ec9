/**
 * Target-date reminders (docs/decisions/008-reminders.md): the urgency table at
 * every boundary and MOC age, the MOCs that are skipped, once per MOC per UTC day (again, at once
 * in one process and across processes), the recipients and what the email says, the daily job
 * and GET /api/auto_reminder running the same code, the endpoint's auth, and a run whose cost
 * does not grow with the MOCs that are not due.
 *
 * Each test works on its own far-future `today`, 400 days from the others', so MOCs of one test
 * are never due on another's day.
 */
import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as addUserRoute from "~/routes/api+/addUser";
import * as autoReminderRoute from "~/routes/api+/auto_reminder";
import {
  dueMocsQuery,
  dueText,
  reminderPreferenceOf,
  setReminderPreference,
  type ReminderRun,
} from "~/models/moc/reminder.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import type { QueryCounter } from "#db/client";
import { runDailyReminder } from "#jobs/reminder";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { sendDueReminders } from "../helpers/reminder-run";
import type { Cast } from "../helpers/moc";
import {
  createMocOk,
  deactivate,
  emailsOf,
  expectError,
  makeCast,
  mocAt,
  post,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";

// Installed before the pool exists (the pool is made on first use, and only then reads it).
const counter: QueryCounter = { count: 0 };
(globalThis as { __cmQueryCounter?: QueryCounter }).__cmQueryCounter = counter;
await closeDb();

let cast: Cast;
let admin: PublicUser;

beforeAll(async () => {
  [cast, admin] = await Promise.all([makeCast(), makeAdmin({ name: "Ada Admin" })]);
});

let dayIndex = 0;
/** A `today` of its own for each test: 2040-01-01 plus 400 days per call. */
function freshDay(): string {
  dayIndex += 1;
  return addDays("2040-01-01", dayIndex * 400);
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Puts the MOC's target date `d` days after `day` and its creation `ageDays` before `day` (noon UTC). */
async function place(mocId: string, day: string, d: number, ageDays: number): Promise<void> {
  await getDb().execute(sql`
    update mocs set target_date = ${day}::date + ${d}::int,
      created_at = ((${day}::date - ${ageDays}::int)::timestamp + interval '12 hours') at time zone 'UTC'
    where id = ${mocId}`);
}

async function dueMoc(day: string, d: number, ageDays = 31, people: Cast = cast): Promise<Doc> {
  const moc = await createMocOk(people);
  await place(moc._id, day, d, ageDays);
  return moc;
}

type ReminderEmail = { toEmail: string; subject: string; text: string; html: string; recordId: string };

/** The reminder emails written about these MOCs (other emails of the MOCs left out). */
async function reminderEmails(mocIds: string[]): Promise<ReminderEmail[]> {
  if (mocIds.length === 0) return [];
  const rows = await getDb().execute<ReminderEmail>(sql`
    select to_email as "toEmail", subject, text, html, record_id as "recordId" from email_messages
    where record_id in (select jsonb_array_elements_text(${JSON.stringify(mocIds)}::jsonb)::uuid)
      and subject like '%reminder:%'
    order by record_id, to_email`);
  return [...rows];
}

const urgencyOf = (run: ReminderRun) => Object.fromEntries(run.results.map((r) => [r.moc_id, r.urgency]));

describe("the urgency table", () => {
  it("gives each day before or after the target date its urgency, for a MOC 31 days old", async () => {
    const day = freshDay();
    const table: [number, string | undefined][] = [
      [-15, undefined],
      [-14, "CRITICAL"],
      [-1, "CRITICAL"],
      [0, "URGENT"],
      [1, "URGENT"],
      [2, "HIGH"],
      [7, "HIGH"],
      [8, "MEDIUM"],
      [14, "MEDIUM"],
      [15, "LOW"],
      [30, "LOW"],
      [31, undefined],
    ];
    const mocs: Doc[] = [];
    for (const [d] of table) mocs.push(await dueMoc(day, d, 31));
    const run = await sendDueReminders({ today: day });
    const got = urgencyOf(run);
    expect(table.map(([d], i) => [d, got[mocs[i]._id]])).toEqual(table);
    expect(run.totalReminders).toBe(10);
    expect(run.results).toHaveLength(10);
    const byId = new Map(run.results.map((r) => [r.moc_id, r]));
    for (const moc of mocs.filter((m) => byId.has(m._id))) {
      expect(byId.get(moc._id)).toEqual({
        moc_id: moc._id,
        serial_num: moc.serial_num,
        urgency: expect.any(String),
        emailsSent: 2,
      });
    }
    // The claim rows keep the urgency and days left of the day.
    const claims = await getDb().execute<{ moc_id: string; urgency: string; days_left: number; emails_sent: number }>(
      sql`select moc_id, urgency, days_left, emails_sent from moc_reminders where day = ${day}::date order by days_left`,
    );
    expect(claims.map((c) => [c.days_left, c.urgency, c.emails_sent])).toEqual(
      table.filter(([, u]) => u).map(([d, u]) => [d, u, 2]),
    );
  });

  it("sends MEDIUM and LOW only for a MOC created more than 30 days ago; the others whatever its age", async () => {
    const day = freshDay();
    const table: [d: number, age: number, urgency: string | undefined][] = [
      [8, 30, undefined],
      [14, 30, undefined],
      [15, 30, undefined],
      [30, 30, undefined],
      [8, 31, "MEDIUM"],
      [30, 31, "LOW"],
      [7, 30, "HIGH"],
      [2, 0, "HIGH"],
      [0, 0, "URGENT"],
      [-14, 0, "CRITICAL"],
    ];
    const mocs: Doc[] = [];
    for (const [d, age] of table) mocs.push(await dueMoc(day, d, age));
    const got = urgencyOf(await sendDueReminders({ today: day }));
    expect(table.map(([d, age], i) => [d, age, got[mocs[i]._id]])).toEqual(table);
  });

  it("skips completed, declined and deleted MOCs and MOCs without a target date", async () => {
    const day = freshDay();
    const open = await dueMoc(day, 1);
    const completed = await dueMoc(day, 1);
    const declined = await dueMoc(day, 1);
    const deleted = await dueMoc(day, 1);
    const undated = await createMocOk(cast);
    await getDb().execute(sql`update mocs set completed = true where id = ${completed._id}`);
    await getDb().execute(sql`update mocs set status = 'decline' where id = ${declined._id}`);
    await getDb().execute(sql`update mocs set is_deleted = true where id = ${deleted._id}`);
    await getDb().execute(sql`update mocs set target_date = null where id = ${undated._id}`);
    const run = await sendDueReminders({ today: day });
    expect(run.results.map((r) => r.moc_id)).toEqual([open._id]);
    expect(await reminderEmails([completed._id, declined._id, deleted._id, undated._id])).toEqual([]);
  });

  it("reminds a MOC that went through the workflow: completed and declined ones through the API are skipped", async () => {
    const day = freshDay();
    const [running, declined, completed] = [
      await mocAt("e", cast),
      await mocAt("decline-d", cast),
      await mocAt("completed", cast),
    ];
    for (const moc of [running, declined, completed]) await place(moc._id, day, 3, 40);
    const run = await sendDueReminders({ today: day });
    expect(run.results.map((r) => [r.moc_id, r.urgency])).toEqual([[running._id, "HIGH"]]);
  });
});

describe("once per MOC per UTC day", () => {
  it("a second run the same day sends nothing; the next day sends again", async () => {
    const day = freshDay();
    const a = await dueMoc(day, 5);
    const b = await dueMoc(day, -3);
    const first = await sendDueReminders({ today: day });
    expect(first.totalReminders).toBe(2);
    expect((await reminderEmails([a._id, b._id])).length).toBe(4);

    const second = await sendDueReminders({ today: day });
    expect(second).toEqual({ message: expect.any(String), totalReminders: 0, results: [], temporaryReminders: [] });
    expect((await reminderEmails([a._id, b._id])).length).toBe(4);

    const next = await sendDueReminders({ today: addDays(day, 1) });
    expect(next.results.map((r) => [r.moc_id, r.urgency]).sort()).toEqual(
      [
        [a._id, "HIGH"],
        [b._id, "CRITICAL"],
      ].sort(),
    );
    expect((await reminderEmails([a._id, b._id])).length).toBe(8);
  });

  it("runs started together (separate connections) remind each MOC once", async () => {
    const day = freshDay();
    const mocs = [await dueMoc(day, -2), await dueMoc(day, 0), await dueMoc(day, 4), await dueMoc(day, 10)];
    const runs = await Promise.all([1, 2, 3, 4].map(() => sendDueReminders({ today: day })));
    expect(runs.reduce((sum, r) => sum + r.totalReminders, 0)).toBe(4);
    const reminded = runs.flatMap((r) => r.results.map((x) => x.moc_id)).sort();
    expect(reminded).toEqual(mocs.map((m) => m._id).sort());
    const emails = await reminderEmails(mocs.map((m) => m._id));
    expect(emails).toHaveLength(8);
    expect(new Set(emails.map((e) => `${e.recordId} ${e.toEmail}`)).size).toBe(8);
  });

  it("two processes running at the same moment remind each MOC once", async () => {
    const day = freshDay();
    const mocs = [await dueMoc(day, -1), await dueMoc(day, 6), await dueMoc(day, 20)];
    const outcomes = await runInProcesses(day, "model", 2);
    const runs = outcomes as ReminderRun[];
    expect(runs.map((r) => r.totalReminders).sort()).toEqual([0, 3]);
    expect(await reminderEmails(mocs.map((m) => m._id))).toHaveLength(6);
  }, 60_000);

  it("the daily job runs the same code, once per day across processes and retries", async () => {
    const day = freshDay();
    const mocs = [await dueMoc(day, -7), await dueMoc(day, 1)];
    const outcomes = (await runInProcesses(day, "job", 2)) as { ran: boolean; totalReminders: number }[];
    expect(outcomes.map((o) => o.ran).sort()).toEqual([false, true]);
    expect(outcomes.find((o) => o.ran)).toMatchObject({ day, totalReminders: 2, emailsSent: 4 });
    // A repeated job of the same day (a retry) does nothing.
    expect(await runDailyReminder(new Date(`${day}T09:00:00Z`))).toEqual({
      ran: false,
      day,
      totalReminders: 0,
      emailsSent: 0,
      digests: 0,
    });
    expect(await reminderEmails(mocs.map((m) => m._id))).toHaveLength(4);
    // The endpoint later the same day finds them reminded already.
    expect((await sendDueReminders({ today: day })).totalReminders).toBe(0);
  }, 60_000);
});

/** Starts `n` processes of tests/helpers/run-reminders.ts, lets them run at once, returns their outcomes. */
async function runInProcesses(day: string, mode: "model" | "job", n: number): Promise<unknown[]> {
  const children = Array.from({ length: n }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/run-reminders.ts", day, mode], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    // Each says "ready" once set up: that line, not a time, lets them go.
    let isReady = () => {};
    const ready = new Promise<void>((resolve) => (isReady = resolve));
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready")) isReady();
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { child, output: () => output, exited, ready };
  });
  try {
    let deadline: NodeJS.Timeout | undefined;
    const started = await Promise.race([
      Promise.all(children.map((c) => c.ready)).then(() => null),
      ...children.map((c) => c.exited.then(() => c)),
      new Promise<undefined>((resolve) => (deadline = setTimeout(() => resolve(undefined), 40_000))),
    ]);
    clearTimeout(deadline);
    if (started !== null) throw new Error(`reminder process did not start:\n${started?.output() ?? ""}`);
    for (const c of children) c.child.stdin!.write("go\n");
    const codes = await Promise.all(children.map((c) => c.exited));
    expect(codes, children.map((c) => c.output()).join("\n")).toEqual(children.map(() => 0));
    return children.map((c) => JSON.parse(c.output().trim().split("\n").at(-1)!));
  } finally {
    for (const c of children) if (c.child.exitCode === null) c.child.kill("SIGKILL");
  }
}

describe("the emails", () => {
  it("go to every active user of the MOC, one each, saying how urgent, what is due, the step, its owner and the link", async () => {
    const day = freshDay();
    const people = await makeCast();
    const moc = await mocAt("c", people); // implementer assessed: waiting for the HSEQ review
    const [extra, gone] = await Promise.all([makeUser({ name: "Eve Extra" }), makeUser({ name: "Gus Gone" })]);
    const res = await post(addUserRoute, "/api/addUser", people.originator, {
      body: { userId: extra!._id, mocId: moc._id, role: "verifier" },
    });
    expect(res.status, res.text).toBe(200);
    await getDb().execute(sql`insert into moc_users (moc_id, user_id) values (${moc._id}, ${gone!._id})`);
    await deactivate(gone!);
    await place(moc._id, day, 1, 3);

    const run = await sendDueReminders({ today: day });
    expect(run.results).toEqual([{ moc_id: moc._id, serial_num: moc.serial_num, urgency: "URGENT", emailsSent: 5 }]);
    const emails = await reminderEmails([moc._id]);
    expect(emails.map((e) => e.toEmail)).toEqual(
      emailsOf(people.originator, people.implementer, people.approver, people.hseq, extra!),
    );
    const target = addDays(day, 1);
    for (const email of emails) {
      expect(email.subject).toBe(`[MOC ${moc.serial_num}] URGENT reminder: MOC ${moc.serial_num} is due tomorrow`);
      for (const body of [email.text, email.html]) {
        expect(body).toContain(`URGENT: MOC ${moc.serial_num} is due tomorrow (target date ${target}).`);
        expect(body).toContain("HSEQ review");
        expect(body).toContain(people.hseq.name);
        expect(body).toContain(`http://localhost:3000/mocs/${moc._id}`);
      }
      expect(email.text).toContain(`Target date: ${target}`);
      expect(email.text).toContain("Days left: 1");
      expect(email.text).toContain("Current step: HSEQ review");
      expect(email.text).toContain(`Step owner: ${people.hseq.name}`);
    }
    expect(emails.find((e) => e.toEmail === people.hseq.email)!.text).toContain(`Hello ${people.hseq.name},`);
    // Each message is a queued pg-boss job with the message id.
    const jobs = await getDb().execute<{ n: number }>(sql`
      select count(*)::int as n from pgboss.job j join email_messages e on e.id = (j.data->>'messageId')::uuid
      where j.name = 'email' and e.record_id = ${moc._id} and e.subject like '%reminder:%'`);
    expect(jobs[0]!.n).toBe(5);
  });

  it("say how overdue a MOC is", async () => {
    const day = freshDay();
    const moc = await dueMoc(day, -3);
    await sendDueReminders({ today: day });
    const [email] = await reminderEmails([moc._id]);
    expect(email!.subject).toContain("CRITICAL reminder");
    expect(email!.text).toContain(
      `CRITICAL: MOC ${moc.serial_num} is 3 days overdue (target date ${addDays(day, -3)}).`,
    );
    expect(email!.text).toContain("Days overdue: 3");
    expect(email!.text).toContain("Current step: Implementer assessment");
    expect(email!.text).toContain(`Step owner: ${cast.implementer.name}`);
    expect([dueText(-1), dueText(0), dueText(1), dueText(9)]).toEqual([
      "is 1 day overdue",
      "is due today",
      "is due tomorrow",
      "is due in 9 days",
    ]);
  });

  it("name each MOC by Part A's title and scope, or by its number without Part A; each MOC to its own people", async () => {
    const day = freshDay();
    const [first, second] = await Promise.all([makeCast(), makeCast()]);
    const named = await dueMoc(day, 1, 31, first);
    const bare = await dueMoc(day, 1, 31, second);
    await getDb().execute(sql`
      update moc_forms set data = data || '{"title": {"value": "Second level check"}, "vessel": {"value": "fleet"}}'::jsonb
      where moc_id = ${named._id} and kind = 'originator'`);
    await getDb().execute(sql`delete from moc_forms where moc_id = ${bare._id} and kind = 'originator'`);

    const run = await sendDueReminders({ today: day });
    expect(run.results.map((r) => [r.moc_id, r.emailsSent]).sort()).toEqual(
      [
        [named._id, 2],
        [bare._id, 2],
      ].sort(),
    );
    const emails = await reminderEmails([named._id, bare._id]);
    const of = (id: string) => emails.filter((e) => e.recordId === id);
    expect(of(named._id).map((e) => e.toEmail)).toEqual(emailsOf(first.originator, first.implementer));
    expect(of(bare._id).map((e) => e.toEmail)).toEqual(emailsOf(second.originator, second.implementer));
    for (const email of of(named._id)) {
      expect(email.subject).toContain(
        `URGENT reminder: MOC ${named.serial_num} — Second level check · Fleet-wide is due tomorrow`,
      );
    }
    for (const email of of(bare._id)) {
      expect(email.subject).toContain(`URGENT reminder: MOC ${bare.serial_num} is due tomorrow`);
    }
  });

  it("a MOC whose users are all deactivated is claimed with no email", async () => {
    const day = freshDay();
    const people = await makeCast();
    const moc = await dueMoc(day, 2, 31, people);
    await deactivate(people.originator);
    await deactivate(people.implementer);
    const run = await sendDueReminders({ today: day });
    expect(run.results).toEqual([{ moc_id: moc._id, serial_num: moc.serial_num, urgency: "HIGH", emailsSent: 0 }]);
    expect(await reminderEmails([moc._id])).toEqual([]);
  });

  it("rejects a malformed day", async () => {
    await expect(sendDueReminders({ today: "2040-13-45" })).rejects.toThrow(/YYYY-MM-DD/);
    await expect(sendDueReminders({ today: "tomorrow" })).rejects.toThrow(/YYYY-MM-DD/);
  });
});

describe("GET /api/auto_reminder", () => {
  const path = "/api/auto_reminder";
  const SECRET = "cron-secret-0123456789-abcdefghijklmnop";
  const setSecret = (value: string | undefined) => {
    if (value === undefined) delete process.env.CRON_SECRET;
    else process.env.CRON_SECRET = value;
    resetEnv();
  };
  afterEach(() => setSecret(undefined));

  const today = () => new Date().toISOString().slice(0, 10);

  it("an admin session runs today's reminders and gets { message, totalReminders, results }", async () => {
    const moc = await createMocOk(cast);
    await place(moc._id, today(), 1, 5);
    const res = await api(autoReminderRoute, { path, token: await tokenOf(admin) });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["message", "results", "totalReminders"]);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.totalReminders).toBe(res.body.results.length);
    expect(res.body.results).toContainEqual({
      moc_id: moc._id,
      serial_num: moc.serial_num,
      urgency: "URGENT",
      emailsSent: 2,
    });
    // Again the same day: nothing new. The cookie works as well as the bearer token.
    const again = await api(autoReminderRoute, { path, token: await tokenOf(admin), cookie: true });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ message: expect.any(String), totalReminders: 0, results: [] });
    expect(await reminderEmails([moc._id])).toHaveLength(2);
  });

  it("refuses other signed-in users (403) and anonymous callers (401)", async () => {
    setSecret(SECRET);
    const member = await makeUser();
    expectError(await api(autoReminderRoute, { path, token: await tokenOf(member) }), 403);
    expectError(await api(autoReminderRoute, { path, token: await tokenOf(member), cookie: true }), 403);
    expectError(await api(autoReminderRoute, { path }), 401);
    expectError(await api(autoReminderRoute, { path, headers: { Authorization: "Basic abc" } }), 401);
  });

  it("a cookie session from another site is refused", async () => {
    const res = await api(autoReminderRoute, {
      path,
      token: await tokenOf(admin),
      cookie: true,
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expectError(res, 403);
  });

  it("accepts Authorization: Bearer <CRON_SECRET>; a wrong secret is 401", async () => {
    setSecret(SECRET);
    const res = await api(autoReminderRoute, { path, headers: { Authorization: `Bearer ${SECRET}` } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["message", "results", "totalReminders"]);
    for (const wrong of [`${SECRET}x`, SECRET.slice(0, -1), "x", SECRET.toUpperCase()]) {
      expectError(await api(autoReminderRoute, { path, headers: { Authorization: `Bearer ${wrong}` } }), 401);
    }
    // Session tokens still work as bearer tokens while a secret is configured.
    expect((await api(autoReminderRoute, { path, token: await tokenOf(admin) })).status).toBe(200);
  });

  it("without CRON_SECRET configured, no bearer secret is accepted", async () => {
    setSecret(undefined);
    expectError(await api(autoReminderRoute, { path, headers: { Authorization: `Bearer ${SECRET}` } }), 401);
    expectError(await api(autoReminderRoute, { path, headers: { Authorization: "Bearer " } }), 401);
    setSecret("");
    expectError(await api(autoReminderRoute, { path, headers: { Authorization: "Bearer " } }), 401);
  });

  it("answers 405 to other methods", async () => {
    const res = await api(autoReminderRoute, { path, method: "POST", token: await tokenOf(admin) });
    expect(res.status).toBe(405);
  });
});

describe("cost", () => {
  /** Adds MOCs `from..to` that are never due in these tests straight into the tables: dated in 2300 or undated. */
  async function seedNotDue(from: number, to: number): Promise<void> {
    const db = getDb();
    await db.execute(sql`
      insert into chat_rooms (id) select md5('rchat-' || g)::uuid from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into mocs (id, serial_num, serial_year, serial_count, status, completed, originator_id, implementer_id,
                        chat_id, target_date, created_at)
      select md5('rmoc-' || g)::uuid, g || '-1998', 1998, g, (array['b', 'c', 'd', 'e', 'f'])[1 + g % 5],
             g % 7 = 0, ${cast.originator._id}::uuid, ${cast.implementer._id}::uuid, md5('rchat-' || g)::uuid,
             case when g % 3 = 0 then null else date '2300-01-01' + g % 3000 end, now() - interval '400 days'
      from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into moc_users (moc_id, user_id)
      select md5('rmoc-' || g)::uuid, u.id from generate_series(${from}::int, ${to}::int) g
      cross join (values (${cast.originator._id}::uuid), (${cast.implementer._id}::uuid)) u(id)`);
    await db.execute(sql`analyze mocs`);
  }

  async function countedRun(day: string) {
    const start = counter.count;
    const run = await sendDueReminders({ today: day });
    return { queries: counter.count - start, run };
  }

  it("a run costs the same statements with 200 or 3,000 MOCs not due, and with 1 or 8 MOCs due", async () => {
    const day = freshDay();
    await dueMoc(day, 3);
    await sendDueReminders({ today: addDays(day, -50) }); // warm-up: pg-boss started, nothing due
    await seedNotDue(1, 200);
    const small = await countedRun(day);
    expect(small.run.totalReminders).toBe(1);

    const day2 = freshDay();
    await dueMoc(day2, 3);
    await seedNotDue(201, 3000);
    const large = await countedRun(day2);
    expect(large.run.totalReminders).toBe(1);
    expect(large.queries).toBe(small.queries);

    const day3 = freshDay();
    for (const d of [-10, -1, 0, 1, 3, 6, 9, 20]) await dueMoc(day3, d);
    const many = await countedRun(day3);
    expect(many.run.totalReminders).toBe(8);
    expect(many.run.results.every((r) => r.emailsSent === 2)).toBe(true);
    expect(many.queries).toBe(small.queries);
  });

  it("finds the due MOCs through the target-date index, not by reading every MOC", async () => {
    const day = freshDay();
    await seedNotDue(3001, 6000);
    const [row] = await getDb().execute<{ "QUERY PLAN": unknown }>(sql`explain (format json) ${dueMocsQuery(day)}`);
    const plan = JSON.stringify(row!["QUERY PLAN"]);
    expect(plan).toContain("mocs_target_date_idx");
    expect(plan).not.toContain("Seq Scan");
  });
});

describe("the daily digest, a preference per person", () => {
  it("who chose the digest gets one email of all their due MOCs by urgency; the others one per MOC; counts unchanged", async () => {
    const day = freshDay();
    const people = await makeCast();
    const high = await dueMoc(day, 5, 31, people);
    const critical = await dueMoc(day, -2, 31, people);
    const recipients = await getDb().execute<{ id: string; email: string }>(sql`
      select u.id, u.email from moc_users mu join users u on u.id = mu.user_id
      where mu.moc_id = ${high._id} order by u.email`);
    expect(recipients.length).toBe(2);
    const [digester, single] = [recipients[0]!, recipients[1]!];
    expect(await setReminderPreference({ _id: digester.id }, "digest")).toBe("digest");

    const run = await sendDueReminders({ today: day });
    // The endpoint's contract: per MOC, the people reminded about it (by its own email or the digest).
    expect(run.results.map((r) => [r.moc_id, r.urgency, r.emailsSent])).toEqual([
      [critical._id, "CRITICAL", 2],
      [high._id, "HIGH", 2],
    ]);
    const perMoc = await reminderEmails([high._id, critical._id]);
    expect(perMoc.map((e) => e.toEmail)).toEqual([single.email, single.email]);

    const digests = await getDb().execute<{ subject: string; text: string; html: string }>(sql`
      select subject, text, html from email_messages where to_email = ${digester.email} and record_id is null`);
    expect(digests).toHaveLength(1);
    const digest = digests[0]!;
    expect(digest.subject).toBe("[MOC reminders] 2 MOCs near or past the target date (1 CRITICAL, 1 HIGH)");
    expect(digest.text).toContain(day);
    const criticalLine = digest.text.indexOf(`CRITICAL · MOC ${critical.serial_num}: is 2 days overdue`);
    const highLine = digest.text.indexOf(`HIGH · MOC ${high.serial_num}: is due in 5 days`);
    expect(criticalLine).toBeGreaterThan(-1);
    expect(highLine).toBeGreaterThan(criticalLine);
    expect(digest.html).toContain(`MOC ${high.serial_num}`);
    // Each message is a queued job, like every other email.
    const jobs = await getDb().execute<{ n: number }>(sql`
      select count(*)::int as n from pgboss.job j join email_messages e on e.id = (j.data->>'messageId')::uuid
      where e.to_email = ${digester.email}`);
    expect(jobs[0]!.n).toBe(1);

    // Back to one email per MOC; a made-up choice is refused and changes nothing.
    await expect(setReminderPreference({ _id: digester.id }, "weekly")).rejects.toMatchObject({ status: 400 });
    expect(await reminderPreferenceOf(digester.id)).toBe("digest");
    await setReminderPreference({ _id: digester.id }, "per_moc");
    expect(await reminderPreferenceOf(digester.id)).toBe("per_moc");
  });
});
