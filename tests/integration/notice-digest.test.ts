/**
 * The daily digest of optional notices (issue 38 item 8, docs/decisions/029-oidc-and-notifications.md):
 * a person who chose it for a kind gets those notices in the app at once and by email once a day,
 * in one message listing them; the daily run lists each notice once; a step waiting on the person
 * is never kept for the digest.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { runDailyReminder } from "#jobs/reminder";
import { listNotifications } from "~/models/messages/notifications.server";
import { channelsAllowed, preferencesOf, setPreferences } from "~/models/people/notice-preferences.server";
import { getDb } from "~/utils/db.server";
import { stepBody } from "../helpers/moc";
import { makeCast, mocAt, stepOk, type Doc } from "../helpers/moc-flow";

let cast: Awaited<ReturnType<typeof makeCast>>;

beforeAll(async () => {
  cast = await makeCast();
});

const messagesTo = (email: string, since: Date) =>
  getDb().execute<{ subject: string; text: string; emailed: boolean; status: string; digest_pending: boolean }>(
    sql`select subject, text, emailed, status, digest_pending from email_messages
        where to_email = ${email} and created_at >= ${since.toISOString()}::timestamptz order by created_at, id`,
  );

describe("the daily digest", () => {
  it("keeps a chosen kind's notices for one email a day, listing each once; the rest as before", async () => {
    // The originator reads decisions on their MOCs once a day.
    await setPreferences(cast.originator, { moc_decision: "digest" });
    expect((await preferencesOf(cast.originator._id)).moc_decision).toBe("digest");
    const start = new Date();
    const moc: Doc = await mocAt("b", cast);
    await stepOk("implementer", cast.implementer, stepBody("implementer", moc, cast));

    // In the app at once, not emailed: waiting for the digest.
    const kept = await messagesTo(cast.originator.email, start);
    expect(kept.length).toBeGreaterThan(0);
    for (const m of kept) expect(m).toMatchObject({ emailed: false, status: "sent", digest_pending: true });
    const inApp = await listNotifications(cast.originator);
    expect(inApp.notifications.some((n) => n.subject === kept[0]!.subject)).toBe(true);
    // The HSEQ user, whose turn it is, was emailed at once as before.
    expect((await messagesTo(cast.hseq.email, start)).some((m) => m.emailed)).toBe(true);

    // The daily run: one email listing them; the next day's run, nothing more.
    const outcome = await runDailyReminder(new Date(Date.now() + 60_000));
    expect(outcome.ran).toBe(true);
    expect(outcome.digests).toBeGreaterThanOrEqual(1);
    const after = await messagesTo(cast.originator.email, start);
    const digests = after.filter((m) => m.subject.includes("Your daily digest"));
    expect(digests).toHaveLength(1);
    expect(digests[0]).toMatchObject({ emailed: true, status: "queued", digest_pending: false });
    // The digest lists notices already in the app: it is kept there as read, adding nothing unread.
    const listed = (await listNotifications(cast.originator)).notifications.find((n) =>
      n.subject.includes("Your daily digest"),
    );
    expect(listed?.readAt).toBeTruthy();
    expect(digests[0]!.subject).toBe(
      `[Your notifications] Your daily digest: ${kept.length} ${kept.length === 1 ? "notice" : "notices"}`,
    );
    for (const m of kept) expect(digests[0]!.text).toContain(m.subject);
    expect(digests[0]!.text).toContain("/notifications/preferences");
    expect(after.filter((m) => m.digest_pending)).toEqual([]);
    const next = await runDailyReminder(new Date(Date.now() + 86_400_000 + 60_000));
    expect(next).toMatchObject({ ran: true, digests: 0 });
    expect((await messagesTo(cast.originator.email, start)).filter((m) => m.subject.includes("digest"))).toHaveLength(
      1,
    );
  });

  it("is refused for a step waiting on the person (their work), with a 400 that changes nothing", async () => {
    expect(channelsAllowed("step_waiting")).toEqual(["email", "in_app"]);
    expect(channelsAllowed("reminder")).toEqual(["email", "digest", "in_app", "off"]);
    const before = await preferencesOf(cast.approver._id);
    await expect(setPreferences(cast.approver, { step_waiting: "digest", reminder: "off" })).rejects.toMatchObject({
      status: 400,
    });
    expect(await preferencesOf(cast.approver._id)).toEqual(before);
    // The database holds the rule too.
    const refused = await getDb()
      .execute(
        sql`insert into notification_preferences (user_id, kind, channel) values (${cast.approver._id}, 'step_waiting', 'digest')`,
      )
      .catch((error: { cause?: { constraint_name?: string } }) => error);
    expect((refused as { cause?: { constraint_name?: string } }).cause?.constraint_name).toBe(
      "notification_preferences_digest_floor_check",
    );
  });
});
