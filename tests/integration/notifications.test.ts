// In-app notifications (docs/decisions/024-everyday-use.md): the outbox's message rows read back per user, each linking to
// where its reader acts; marking read touches only one's own.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { beforeAll, describe, expect, it } from "vitest";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  unreadNotificationCount,
} from "~/models/messages/notifications.server";
import { makeCast, mocAt, stepOk } from "../helpers/moc-flow";
import { makeUser } from "../helpers/factories";
import { stepBody } from "../helpers/moc";

let cast: Awaited<ReturnType<typeof makeCast>>;

beforeAll(async () => {
  cast = await makeCast();
});

describe("notifications", () => {
  it("list what was sent to each user, unread, with a link to the step form waiting on them", async () => {
    const moc = await mocAt("b", cast);
    // Raising the MOC told the implementer, whose next act is Part B.
    const mine = await listNotifications(cast.implementer);
    const raised = mine.notifications.find((n) => n.recordLabel === `MOC ${moc.serial_num}`);
    expect(raised).toMatchObject({ recordType: "moc", readAt: null, link: `/mocs/${moc._id}/implementer` });
    expect(raised!.subject).toContain(`MOC ${moc.serial_num}`);
    expect(mine.unread).toBeGreaterThan(0);
    expect(await unreadNotificationCount(cast.implementer)).toBe(mine.unread);

    // Part B sent to HSEQ and the approver: HSEQ's link is the review form, the approver's (who
    // cannot act yet) the record.
    await stepOk("implementer", cast.implementer, stepBody("implementer", moc, cast));
    const forHseq = (await listNotifications(cast.hseq)).notifications.find(
      (n) => n.recordLabel === `MOC ${moc.serial_num}`,
    );
    expect(forHseq?.link).toBe(`/mocs/${moc._id}/hseq`);
    const forApprover = (await listNotifications(cast.approver)).notifications.find(
      (n) => n.recordLabel === `MOC ${moc.serial_num}`,
    );
    expect(forApprover?.link).toBe(`/mocs/${moc._id}`);
  });

  it("mark one read (only one's own; others' ids are 404), then all; the unread filter follows", async () => {
    await mocAt("c", cast);
    const before = await listNotifications(cast.implementer);
    const first = before.notifications[0]!;
    await expect(markNotificationRead(cast.hseq, first.id)).rejects.toMatchObject({ status: 404 });
    await expect(markNotificationRead(cast.implementer, randomUUID())).rejects.toMatchObject({ status: 404 });
    expect((await listNotifications(cast.implementer)).unread).toBe(before.unread);

    const opened = await markNotificationRead(cast.implementer, first.id);
    expect(opened.link).toBe(first.link);
    const after = await listNotifications(cast.implementer);
    expect(after.unread).toBe(before.unread - 1);
    expect(after.notifications.find((n) => n.id === first.id)?.readAt).toEqual(expect.any(String));
    const unreadOnly = await listNotifications(cast.implementer, { unreadOnly: true });
    expect(unreadOnly.notifications.map((n) => n.id)).not.toContain(first.id);
    expect(unreadOnly.total).toBe(after.unread);

    expect(await markAllNotificationsRead(cast.implementer)).toBe(after.unread);
    expect(await unreadNotificationCount(cast.implementer)).toBe(0);
    expect((await listNotifications(cast.implementer, { unreadOnly: true })).notifications).toEqual([]);
    // Someone else's stay unread (HSEQ was told of the assessment).
    expect(await unreadNotificationCount(cast.hseq)).toBeGreaterThan(0);
  });

  it("a user with nothing sent has an empty list and no unread count", async () => {
    const quiet = await makeUser();
    expect(await listNotifications(quiet)).toEqual({ notifications: [], total: 0, unread: 0 });
    expect(await unreadNotificationCount(quiet)).toBe(0);
  });
});

describe("one email per person per event (issue 38 item 8)", () => {
  it("through every path of the pipeline, nobody is emailed twice by one step", async () => {
    const mocs = [];
    for (const stage of ["completed", "f-report", "b-returned", "b-both", "decline-d"] as const) {
      mocs.push(await mocAt(stage, cast, { verifier: stage === "completed" }));
    }
    // A step's emails are written in its transaction, so they share its timestamp.
    const rows = await getDb().execute<{ serial: string; to_email: string; n: number }>(sql`
      select m.serial_num as serial, e.to_email, count(*)::int as n from email_messages e
      join mocs m on m.id = e.record_id
      where e.record_id in ${sql.raw(`(${mocs.map((m) => `'${m._id}'`).join(", ")})`)}
      group by m.serial_num, e.to_email, e.created_at having count(*) > 1`);
    expect([...rows]).toEqual([]);
    const [sent] = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from email_messages where record_id = ${mocs[0]!._id}`,
    );
    expect(sent!.n).toBeGreaterThan(5);
  });
});
