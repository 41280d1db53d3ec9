/**
 * Notices people want (docs/decisions/029-oidc-and-notifications.md): nobody is told of their own
 * action; each kind's choice (email and in-app, in-app only, off) is honoured for both; @mentions
 * reach once, and only people who may see the record; an email carries List-Unsubscribe and a link
 * whose signed token works without signing in and changes only that kind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "#db/client";
import { deliverEmail } from "#jobs/email";
import { startBoss } from "#jobs/boss";
import * as chatRoute from "~/routes/api+/chat";
import * as substituteRoute from "~/routes/api+/pcr.substitute";
import * as withdrawRoute from "~/routes/api+/pcr.withdraw";
import * as preferencesRoute from "~/routes/notifications_.preferences";
import * as unsubscribeRoute from "~/routes/unsubscribe.$token";
import { notify } from "~/models/messages/email.server";
import {
  preferencesOf,
  setPreferences,
  unsubscribeToken,
  type NoticeKind,
} from "~/models/people/notice-preferences.server";
import { NOTICE_KINDS } from "#db/schema";
import { resetEnv } from "~/utils/env.server";
import { startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { makeAdmin, makeUser } from "../helpers/factories";
import { createMocOk, makeCast, post, tokenOf } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, signOk } from "../helpers/pcr";
import { BASE, call } from "../helpers/request";

type Row = { kind: string | null; emailed: boolean; status: string; subject: string; text: string; jobs: number };

/** What each person got: their message rows and whether each has an email job. */
async function received(userId: string): Promise<Row[]> {
  return [
    ...(await getDb().execute<Row>(sql`
      select m.kind, m.emailed, m.status, m.subject, m.text,
        (select count(*)::int from pgboss.job j where j.data->>'messageId' = m.id::text) as jobs
      from email_messages m where m.to_user_id = ${userId} order by m.created_at`)),
  ];
}

// The job table exists once pg-boss has started (the first notice would start it).
beforeAll(async () => {
  await startBoss();
});

const content = (event: string) => ({
  record: { label: "MOC 1-2026", url: "/mocs/x" },
  event,
  expectation: null,
});

describe("nobody is told of their own action", () => {
  it("a MOC raised with oneself as implementer, a PCR one signs, a chat message one writes", async () => {
    const cast = await makeCast();
    // The originator names themselves implementer: nothing reaches them.
    const moc = await createMocOk({ ...cast, implementer: cast.originator });
    expect(moc._id).toBeTruthy();
    expect(await received(cast.originator._id)).toEqual([]);

    // The originator of a PCR also holds the next slot (VP Fleet Management): signing the first
    // slot tells the next holder, who is themselves, nothing.
    const holders = await makeHolders(`own-${Date.now()}`);
    const originator = holders["VP Fleet Management"];
    const pcr = await createPcrOk(originator);
    const before = (await received(originator._id)).length;
    await signOk(originator, pcr._id, "Change Originator", { signature: originator.name });
    expect((await received(originator._id)).length).toBe(before);

    // Mentioning oneself notifies nobody.
    const res = await post(chatRoute, "/api/chat", cast.originator, {
      body: { chat_id: moc.chat, message: { message: `Note to self @${cast.originator.name}` } },
    });
    expect(res.status, res.text).toBe(200);
    expect(await received(cast.originator._id)).toEqual([]);
  });

  it("withdrawing one's PCR, and an admin naming themselves a PCR's substitute signer", async () => {
    const holders = await makeHolders(`withdraw-${Date.now()}`);
    const vp = holders["VP Fleet Management"];
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    await signOk(originator, pcr._id, "Change Originator", { signature: originator.name });
    await signOk(vp, pcr._id, "VP Fleet Management", { signature: vp.name });
    const [mine, theirs] = [(await received(originator._id)).length, (await received(vp._id)).length];
    const withdrawn = await post(withdrawRoute, "/api/pcr/withdraw", originator, {
      body: { pcrId: pcr._id, reason: "Raised in error" },
    });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect((await received(originator._id)).length).toBe(mine);
    // The signer is still told.
    expect((await received(vp._id)).length).toBe(theirs + 1);

    // A PCR raised by the VP: an admin names themselves to sign the VP's slot, and is not told of it.
    const raised = await createPcrOk(vp);
    await signOk(vp, raised._id, "Change Originator", { signature: vp.name });
    const admin = await makeAdmin();
    const before = (await received(admin._id)).length;
    const named = await post(substituteRoute, "/api/pcr/substitute", admin, {
      body: { pcrId: raised._id, role: "VP Fleet Management", userId: admin._id },
    });
    expect(named.status, named.text).toBe(200);
    expect((await received(admin._id)).length).toBe(before);
  });

  it("the other people of a step are still told", async () => {
    const cast = await makeCast();
    await createMocOk(cast);
    const got = await received(cast.implementer._id);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ kind: "step_waiting", emailed: true, status: "queued", jobs: 1 });
  });
});

describe("each kind's choice is honoured", () => {
  it("email and in-app, in-app only, and off", async () => {
    const person = await makeUser();
    await setPreferences(person, { moc_decision: "in_app", pcr_signature: "off" });
    await getDb().transaction(async (tx) => {
      await notify(tx, { to: { userIds: [person._id] }, content: content("Emailed."), kind: "reminder" });
      await notify(tx, { to: { userIds: [person._id] }, content: content("In the app."), kind: "moc_decision" });
      await notify(tx, { to: { userIds: [person._id] }, content: content("Never."), kind: "pcr_signature" });
    });
    const got = await received(person._id);
    expect(got.map((r) => [r.kind, r.emailed, r.status, r.jobs])).toEqual([
      ["reminder", true, "queued", 1],
      ["moc_decision", false, "sent", 0],
    ]);
  });

  it("every kind, every channel: email and in-app, in-app only, off (a waiting step at least in-app)", async () => {
    const channels = ["email", "in_app", "off"] as const;
    const people = await Promise.all(channels.map(() => makeUser()));
    for (const [i, person] of people.entries()) {
      const floor = (kind: NoticeKind) => (kind === "step_waiting" && channels[i] === "off" ? "in_app" : channels[i]!);
      if (channels[i] !== "email") {
        await setPreferences(person, Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, floor(kind)])));
      }
      await getDb().transaction(async (tx) => {
        for (const kind of NOTICE_KINDS) {
          await notify(tx, { to: { userIds: [person._id] }, content: content(`A ${kind} notice.`), kind });
        }
      });
      const got = await received(person._id);
      const expected = NOTICE_KINDS.flatMap((kind) =>
        floor(kind) === "off" ? [] : [[kind, floor(kind) === "email", floor(kind) === "email" ? 1 : 0]],
      );
      expect(got.map((r) => [r.kind, r.emailed, r.jobs])).toEqual(expected);
    }
  });

  it("a step waiting on someone is never off, and a partial change keeps the other kinds", async () => {
    const person = await makeUser();
    await setPreferences(person, { reminder: "off" });
    await expect(setPreferences(person, { step_waiting: "off", chat_mention: "in_app" })).rejects.toMatchObject({
      status: 400,
    });
    // Refused whole: the valid half changed nothing either.
    expect(await preferencesOf(person._id)).toMatchObject({
      step_waiting: "email",
      chat_mention: "email",
      reminder: "off",
    });
    await setPreferences(person, { step_waiting: "in_app" });
    expect(await preferencesOf(person._id)).toMatchObject({ step_waiting: "in_app", reminder: "off" });
    await getDb().transaction((tx) =>
      notify(tx, { to: { userIds: [person._id] }, content: content("Your turn."), kind: "step_waiting" }),
    );
    expect((await received(person._id)).map((r) => [r.kind, r.emailed])).toEqual([["step_waiting", false]]);
  });

  it("the preferences page saves a form post and refuses a bad one with 400", async () => {
    const person = await makeUser();
    const token = await tokenOf(person);
    const save = (fields: Record<string, string>) =>
      call(
        { action: preferencesRoute.action },
        {
          method: "POST",
          path: "/notifications/preferences",
          token,
          cookie: true,
          body: new URLSearchParams(fields).toString(),
          headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
        },
      );
    const ok = await save({ chat_mention: "off", step_waiting: "email" });
    expect(ok.status).toBe(302);
    expect((await preferencesOf(person._id)).chat_mention).toBe("off");
    const bad = await save({ step_waiting: "off" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/not valid/);
    const nonsense = await save({ reminder: "loud" });
    expect(nonsense.status).toBe(400);
    expect((await preferencesOf(person._id)).reminder).toBe("email");
  });
});

describe("@mentions in a record's chat", () => {
  it("notify once, and only people who may see the record", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const outsider = await makeUser({ name: "Otto Outsider", department: "engineering" });
    const handle = cast.hseq.email.split("@")[0];
    // The approver is named in no step yet, so may not see the MOC.
    const message = `@${cast.implementer.name} and @${cast.implementer.name} again, @${handle}, @${outsider.name} and @${cast.approver.name}`;
    const res = await post(chatRoute, "/api/chat", cast.originator, {
      body: { chat_id: moc.chat, message: { message } },
    });
    expect(res.status, res.text).toBe(200);
    const implementer = (await received(cast.implementer._id)).filter((r) => r.kind === "chat_mention");
    expect(implementer).toHaveLength(1);
    expect(implementer[0]!.subject).toContain(`MOC ${moc.serial_num}`);
    expect(implementer[0]!.text).toContain(`${cast.originator.name} mentioned you`);
    expect(await received(cast.approver._id)).toEqual([]);
    expect((await received(cast.hseq._id)).filter((r) => r.kind === "chat_mention")).toHaveLength(1);
    expect(await received(outsider._id)).toEqual([]);
  });

  it("a name that only starts another word is no mention", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const ann = await makeUser({ name: "Ann", department: "hseq" });
    await post(chatRoute, "/api/chat", cast.originator, {
      body: { chat_id: moc.chat, message: { message: "@Annabel will look at it" } },
    });
    expect(await received(ann._id)).toEqual([]);
  });
});

describe("unsubscribing", () => {
  let fake: FakeResend;
  beforeAll(async () => {
    fake = await startFakeResend();
    process.env.RESEND_API_KEY = "re_test_key";
    process.env.RESEND_BASE_URL = fake.url;
    resetEnv();
  });
  afterAll(async () => {
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_BASE_URL;
    resetEnv();
    await fake.close();
  });

  it("the email carries List-Unsubscribe (one click) and a link to the preferences", async () => {
    const person = await makeUser();
    await getDb().transaction((tx) =>
      notify(tx, { to: { userIds: [person._id] }, content: content("Reminder."), kind: "reminder" }),
    );
    const [row] = await getDb().execute<{ id: string }>(
      sql`select id from email_messages where to_user_id = ${person._id}`,
    );
    expect(await deliverEmail(row!.id)).toBe("sent");
    const sent = fake.deliveries.find((d) => d.to.includes(person.email))!;
    const expected = `${BASE}/unsubscribe/${unsubscribeToken(person._id, "reminder")}`;
    expect(sent.headers["List-Unsubscribe"]).toBe(`<${expected}>`);
    expect(sent.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(sent.text).toContain(expected);
    expect(sent.text).toContain(`${BASE}/notifications/preferences`);
    expect(sent.html).toContain("Choose which notices you get");
  });

  it("the signed link works without signing in and changes only that kind", async () => {
    const person = await makeUser();
    await setPreferences(person, { chat_mention: "off", moc_decision: "in_app" });
    const token = unsubscribeToken(person._id, "reminder");
    const page = await call(unsubscribeRoute, { path: `/unsubscribe/${token}`, params: { token } });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ name: person.name, kind: "Reminders" });
    // Looking at the page changes nothing (link scanners fetch links).
    expect((await preferencesOf(person._id)).reminder).toBe("email");
    const oneClick = await call(unsubscribeRoute, {
      method: "POST",
      path: `/unsubscribe/${token}`,
      params: { token },
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://mail.example" },
    });
    expect(oneClick.status).toBe(200);
    expect(await preferencesOf(person._id)).toEqual({
      step_waiting: "email",
      moc_decision: "in_app",
      reminder: "in_app",
      action: "email",
      chat_mention: "off",
      pcr_signature: "email",
    });
  });

  it("a forged or altered token is refused and changes nothing", async () => {
    const person = await makeUser();
    const token = unsubscribeToken(person._id, "reminder");
    const [body, signature] = token.split(".");
    const otherKind = Buffer.from(`${person._id}.chat_mention`).toString("base64url");
    for (const bad of [`${otherKind}.${signature}`, `${body}.${"A".repeat(signature!.length)}`, "nonsense"]) {
      const res = await call(unsubscribeRoute, {
        method: "POST",
        path: `/unsubscribe/${bad}`,
        params: { token: bad },
        body: "List-Unsubscribe=One-Click",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).toBe(404);
    }
    expect(await preferencesOf(person._id)).toMatchObject({ reminder: "email", chat_mention: "email" });
  });
});
