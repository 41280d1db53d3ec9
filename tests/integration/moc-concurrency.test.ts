/**
 * Concurrency (docs/decisions/004-moc-workflow.md): serial numbers are unique under any concurrency, and a
 * step moves a MOC only from the status it expects, so identical submissions at the same moment
 * move it once and the others get 409.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as newmocRoute from "~/routes/api+/newmoc";
import { getDb } from "~/utils/db.server";
import { startBoss } from "#jobs/boss";
import { api } from "../helpers/api";
import { newMocBody, type Cast } from "../helpers/moc";
import {
  defaultStepBody,
  emailRows,
  emailsOf,
  expectError,
  makeCast,
  mocAt,
  mocSnapshot,
  submitStep,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";
import { describeMocInvariants } from "../helpers/db-state";

let cast: Cast;

beforeAll(async () => {
  cast = await makeCast();
  // Start the job queue before the burst (the first email starts it otherwise).
  await startBoss();
});

describe("concurrent creation", () => {
  it("30 MOCs created at once get 30 distinct serials {1..30}-{year}", async () => {
    const year = new Date().getUTCFullYear();
    const token = await tokenOf(cast.originator);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api(newmocRoute, {
          method: "POST",
          path: "/api/newmoc",
          token,
          body: newMocBody(cast.implementer, { "reason-for-change": { value: `Reason ${i}` } }),
        }),
      ),
    );
    for (const res of results) expect(res.status, res.text).toBe(200);
    const serials = results.map((r) => r.body.data.serial_num as string);
    expect(new Set(serials).size).toBe(30);
    // No gap and no repeat.
    const expected = Array.from({ length: 30 }, (_, i) => `${i + 1}-${year}`);
    expect([...serials].sort()).toEqual([...expected].sort());
    const rows = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    expect(rows[0]!.n).toBe(30);
    const [counter] = await getDb().execute<{ last: number }>(
      sql`select last from serial_counters where kind = 'moc' and year = ${year}`,
    );
    expect(counter!.last).toBe(30);
  });
});

describe("the same approval sent 12 times at once", () => {
  it("moves the MOC once: one 200, eleven 409, one log entry, one set of emails", async () => {
    const moc: Doc = await mocAt("d", cast);
    const before = await mocSnapshot(moc._id);
    const body = defaultStepBody("approver", moc, cast);
    await tokenOf(cast.approver);
    const results = await Promise.all(Array.from({ length: 12 }, () => submitStep("approver", cast.approver, body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(11).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) expectError(res, 409);
    const winner = results.find((r) => r.status === 200)!.body.data;
    expect(winner.status).toBe("e");

    const after = await mocSnapshot(moc._id);
    expect(after.moc[0]!.status).toBe("e");
    expect(after.logs).toHaveLength(before.logs.length + 1);
    expect(after.logs.at(-1)).toMatchObject({ from_status: "d", to_status: "e", user_id: cast.approver._id });
    const fresh = (await emailRows(moc._id)).filter((r) => !before.emails.some((e) => e.id === r.id));
    expect(fresh.map((r) => r.toEmail).sort()).toEqual(emailsOf(cast.originator, cast.implementer, cast.hseq));
    expect(after.forms.filter((f) => f.kind === "approver")).toHaveLength(1);
  });

  it("two different answers at once (approve and decline): exactly one wins", async () => {
    const moc: Doc = await mocAt("d", cast);
    const approve = defaultStepBody("approver", moc, cast);
    const decline = {
      moc_id: moc._id,
      approver_form: {
        "approver-changes-reviewed": { value: "yes" },
        "approver-moc-approved": { value: "no" },
        "decline-reason": { value: "No" },
      },
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => submitStep("approver", cast.approver, i % 2 ? decline : approve)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const after = await mocSnapshot(moc._id);
    const landed = after.moc[0]!.status;
    expect(["e", "decline"]).toContain(landed);
    expect(after.logs.at(-1)).toMatchObject({ from_status: "d", to_status: landed });
    // The stored form is the winner's answer.
    const form = after.forms.find((f) => f.kind === "approver")!;
    expect(form.data["approver-moc-approved"]).toEqual({ value: landed === "e" ? "yes" : "no" });
  });
});

describeMocInvariants();
