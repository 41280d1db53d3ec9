import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "#db/client";
import { emailMessages } from "#db/schema";
import { startBoss } from "#jobs/boss";
import { REMINDER_QUEUE } from "#jobs/queues";
import { runDailyReminder } from "#jobs/reminder";
import { startWorkers } from "#jobs/workers";
import { notify, type NotifyInput } from "~/models/messages/email.server";
import { updateUser } from "~/models/people/user.server";
import * as outboxPage from "~/routes/admin+/outbox";
import { renderEmail } from "~/utils/email-layout.server";
import { resetEnv } from "~/utils/env.server";
import { eventually, startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { buildRequest } from "../helpers/request";

let fake: FakeResend;

const content: NotifyInput["content"] = {
  record: { label: "MOC 7-2026", url: "/mocs/00000000-0000-4000-8000-000000000007" },
  event: "Jane Doe approved the implementer assessment.",
  expectation: "Review the change as the HSEQ user.",
  details: [["Target date", "2026-12-01"]],
};

/** Waits until every queued message has been handled, so a test's fake-API setup is its own. */
async function drain() {
  await eventually(async () => {
    const rows = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from email_messages where status in ('queued', 'sending')`,
    );
    expect(rows[0]!.n).toBe(0);
  }, 30_000);
}

async function useResend(on: boolean) {
  await drain();
  if (on) {
    process.env.RESEND_API_KEY = "re_test_key";
    process.env.RESEND_BASE_URL = fake.url;
  } else {
    delete process.env.RESEND_API_KEY;
  }
  resetEnv();
}

async function messagesTo(email: string) {
  return getDb()
    .select()
    .from(emailMessages)
    .where(sql`${emailMessages.toEmail} = ${email}`);
}

async function emailJobCount(): Promise<number> {
  const rows = await getDb().execute<{ n: number }>(
    sql`select count(*)::int as n from pgboss.job where name = 'email'`,
  );
  return rows[0]!.n;
}

beforeAll(async () => {
  fake = await startFakeResend();
  Object.assign(process.env, {
    EMAIL_RETRY_LIMIT: "3",
    EMAIL_RETRY_DELAY_SECONDS: "1",
    JOBS_POLLING_INTERVAL_SECONDS: "0.5",
  });
  resetEnv();
  await startWorkers();
});

afterAll(async () => {
  await fake.close();
});

describe("the outbox pattern", () => {
  it("a change whose transaction rolls back enqueues nothing", async () => {
    const user = await makeUser();
    const jobsBefore = await emailJobCount();
    await expect(
      getDb().transaction(async (tx) => {
        await notify(tx, { to: { userIds: [user._id] }, content });
        throw new Error("the change failed after notifying");
      }),
    ).rejects.toThrow("the change failed");
    expect(await messagesTo(user.email)).toHaveLength(0);
    expect(await emailJobCount()).toBe(jobsBefore);
  });

  it("a committed change is delivered, to the local outbox without RESEND_API_KEY", async () => {
    await useResend(false);
    const user = await makeUser();
    const requestsBefore = fake.requests.length;
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [user._id] }, content }));
    const [message] = await eventually(async () => {
      const rows = await messagesTo(user.email);
      expect(rows[0]?.status).toBe("sent");
      return rows;
    });
    expect(message!.transport).toBe("outbox");
    expect(message!.attempts).toBe(1);
    expect(message!.sentAt).toBeInstanceOf(Date);
    expect(fake.requests.length).toBe(requestsBefore);
  });

  it("the job's data lands as a jsonb object, not a jsonb string", async () => {
    const user = await makeUser();
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [user._id] }, content }));
    const rows = await getDb().execute<{ kind: string; id: string }>(sql`
      select jsonb_typeof(data) as kind, data->>'messageId' as id from pgboss.job
      where name = 'email' order by created_on desc limit 1`);
    expect(rows[0]!.kind).toBe("object");
    const [message] = await messagesTo(user.email);
    expect(rows[0]!.id).toBe(message!.id);
  });

  it("one message per distinct active recipient: duplicates, inactive users and empty ids skipped", async () => {
    const admin = await makeAdmin();
    const a = await makeUser();
    const b = await makeUser({ department: "hseq" });
    const inactive = await makeUser({ department: "hseq" });
    await updateUser(admin, { _id: inactive._id, active: false });
    const written = await getDb().transaction((tx) =>
      notify(tx, { to: { userIds: [a._id, a._id, null, undefined, inactive._id], departments: ["hseq"] }, content }),
    );
    expect(written).toContain(a.email);
    expect(written).toContain(b.email);
    expect(written).not.toContain(inactive.email);
    expect(new Set(written).size).toBe(written.length);
    expect(await messagesTo(a.email)).toHaveLength(1);
    expect(await messagesTo(inactive.email)).toHaveLength(0);
  });
});

describe("delivery through Resend", () => {
  it("the mail API failing for the first attempts still ends in exactly one delivery", async () => {
    await useResend(true);
    const user = await makeUser();
    fake.failNext(2);
    const requestsBefore = fake.requests.length;
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [user._id] }, content }));
    const [message] = await eventually(async () => {
      const rows = await messagesTo(user.email);
      expect(rows[0]?.status).toBe("sent");
      return rows;
    }, 30_000);
    expect(message!.transport).toBe("resend");
    expect(message!.attempts).toBe(3);
    expect(message!.lastError).toBeNull();
    const mine = fake.deliveries.filter((d) => d.to.includes(user.email));
    expect(mine).toHaveLength(1);
    // The batch's key, derived from its message ids, is on the message; the retries reused it.
    expect(message!.batchKey).toMatch(/^batch-[0-9a-f]{64}$/);
    expect(mine[0]!.idempotencyKey).toBe(message!.batchKey);
    expect(mine[0]!.messageId).toBe(message!.id);
    expect(message!.batchOpen).toBe(false);
    expect(fake.requests.slice(requestsBefore).every((r) => r.idempotencyKey === message!.batchKey)).toBe(true);
    expect(mine[0]!.subject).toBe("[MOC 7-2026] Jane Doe approved the implementer assessment.");
    expect(message!.providerId).toBe(mine[0]!.id);
    expect(fake.requests.length - requestsBefore).toBe(3);
  });

  it("past its retries a message is failed, visible to admins, and an admin can retry it", async () => {
    await useResend(true);
    const admin = await makeAdmin();
    const user = await makeUser();
    fake.failNext(1000);
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [user._id] }, content }));
    const [failed] = await eventually(async () => {
      const rows = await messagesTo(user.email);
      expect(rows[0]?.status).toBe("failed");
      return rows;
    }, 40_000);
    expect(failed!.attempts).toBe(4);
    expect(failed!.lastError).toContain("Simulated outage");

    const token = await tokenFor(admin);
    const page = await outboxPage.loader({
      request: await buildRequest({
        path: `/admin/outbox?status=failed&to=${encodeURIComponent(user.email)}`,
        token,
        cookie: true,
      }),
      params: {},
      context: {},
    });
    expect(page.messages.map((m) => m.id)).toEqual([failed!.id]);
    expect(page.messages[0]!.lastError).toContain("Simulated outage");

    fake.failNext(0);
    const form = new URLSearchParams({ intent: "retry", messageId: failed!.id });
    const response = await outboxPage.action({
      request: await buildRequest({
        method: "POST",
        path: "/admin/outbox",
        token,
        cookie: true,
        body: form.toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      params: {},
      context: {},
    });
    expect(response.status).toBe(302);
    const [sent] = await eventually(async () => {
      const rows = await messagesTo(user.email);
      expect(rows[0]?.status).toBe("sent");
      return rows;
    }, 20_000);
    expect(sent!.attempts).toBe(5);
    expect(fake.deliveries.filter((d) => d.to.includes(user.email))).toHaveLength(1);
  });
});

describe("the admin outbox page", () => {
  it("lists messages for admins, filtered by status and recipient", async () => {
    await useResend(false);
    const admin = await makeAdmin();
    const a = await makeUser();
    const b = await makeUser();
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [a._id, b._id] }, content }));
    await eventually(async () => expect((await messagesTo(b.email))[0]?.status).toBe("sent"));
    const page = await outboxPage.loader({
      request: await buildRequest({
        path: `/admin/outbox?to=${encodeURIComponent(a.email)}`,
        token: await tokenFor(admin),
        cookie: true,
      }),
      params: {},
      context: {},
    });
    expect(page.messages).toHaveLength(1);
    expect(page.messages[0]!.to).toBe(a.email);
    expect(page.messages[0]!.subject).toContain("MOC 7-2026");
    expect(page.messages[0]!.text).toContain("Review the change as the HSEQ user.");
  });

  it("refuses anyone but an admin (403)", async () => {
    const user = await makeUser({ department: "hseq", access: "full" });
    const thrown = await outboxPage
      .loader({
        request: await buildRequest({ path: "/admin/outbox", token: await tokenFor(user), cookie: true }),
        params: {},
        context: {},
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect((thrown as { init?: { status?: number } }).init?.status).toBe(403);
  });
});

describe("messages people can act on", () => {
  it("renders the serial, what happened, what to do and a link at APP_URL, in HTML and text", () => {
    const email = renderEmail(content, "Sam <Ops>", "https://moc.example.com");
    expect(email.subject).toBe("[MOC 7-2026] Jane Doe approved the implementer assessment.");
    for (const body of [email.text, email.html]) {
      expect(body).toContain("Jane Doe approved the implementer assessment.");
      expect(body).toContain("Review the change as the HSEQ user.");
      expect(body).toContain("https://moc.example.com/mocs/00000000-0000-4000-8000-000000000007");
      expect(body).toContain("2026-12-01");
    }
    expect(email.html).toContain("Sam &lt;Ops&gt;");
    expect(email.html).not.toContain("<Ops>");
    expect(renderEmail({ ...content, expectation: null }, "Sam", "http://x").text).toContain("No action is needed");
  });
});

describe("the daily schedule", () => {
  it("is registered at 08:00 UTC on the reminder queue", async () => {
    const boss = await startBoss();
    const schedules = await boss.getSchedules();
    const reminder = schedules.find((s) => s.name === REMINDER_QUEUE);
    expect(reminder?.cron).toBe("0 8 * * *");
    expect((reminder as { timezone?: string } | undefined)?.timezone ?? "UTC").toBe("UTC");
  });

  it("runs once per UTC day whatever the number of calls", async () => {
    const day = new Date("2031-03-04T08:00:30Z");
    const results = await Promise.all([runDailyReminder(day), runDailyReminder(day), runDailyReminder(day)]);
    expect(results.filter((r) => r.ran)).toHaveLength(1);
    expect((await runDailyReminder(new Date("2031-03-05T08:00:10Z"))).ran).toBe(true);
  });
});
