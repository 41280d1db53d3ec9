/**
 * The authorization table of risk-based approvals (docs/decisions/037-risk-ranking-and-approvals.md):
 * who may give each approval a MOC's risk needs (`mayGiveApproval` inside the approver step's rule),
 * as a table of person x MOC, and its SQL twins (the approver step's `who.sql`, "waiting on me",
 * the list's "waiting on") against the predicates for every MOC and person here.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as impactRoute from "~/routes/api+/impact";
import { loadMocAccess, loadMocDocument } from "~/models/moc/moc-query.server";
import {
  currentOwner,
  OWNER_SQL,
  pendingStepSql,
  STEPS,
  stateOfDocument,
  waitsOnActor,
} from "~/models/moc/moc-steps.server";
import { mayGiveApproval, pendingApproval } from "~/models/authz/risk-approval.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { riskOfRecord } from "~/web/risk-page.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { approverForm, hseqForm, type Cast } from "../helpers/moc";
import { makeCast, mocAt, post, stepOk, type Doc } from "../helpers/moc-flow";

let cast: Cast;
const people: Record<string, PublicUser> = {};
const mocs: Record<string, Doc> = {};

async function atApproval(residual: [number, number] | null): Promise<Doc> {
  const moc = await mocAt("c", cast);
  if (residual) {
    const res = await post(impactRoute, "/api/impact", cast.implementer, {
      body: {
        moc_id: moc._id,
        impact_assessment: [
          { category: "Safety", hazards: [], residualLikelihood: residual[0], residualSeverity: residual[1] },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  }
  return stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
}
const yes = (actor: PublicUser, moc: Doc) =>
  stepOk("approver", actor, { moc_id: moc._id, approver_form: approverForm() });

beforeAll(async () => {
  cast = await makeCast();
  Object.assign(people, cast, {
    director: await makeUser({ name: "Dee Director", position: "Director HSEQ" }),
    director2: await makeUser({ name: "Dan Director", position: "Director HSEQ" }),
    president: await makeUser({ name: "Pia President", position: "President" }),
    admin: await makeAdmin(),
  });
  mocs.lowWaitingApprover = await atApproval([1, 2]);
  mocs.highWaitingApprover = await atApproval([3, 4]);
  mocs.highWaitingDirector = await atApproval([3, 4]);
  await yes(cast.approver, mocs.highWaitingDirector);
  mocs.extremeWaitingDirector = await atApproval([5, 5]);
  await yes(cast.approver, mocs.extremeWaitingDirector);
  mocs.extremeWaitingPresident = await atApproval([5, 5]);
  await yes(cast.approver, mocs.extremeWaitingPresident);
  await yes(people.director2!, mocs.extremeWaitingPresident);
  mocs.highApproved = await atApproval([3, 4]);
  await yes(cast.approver, mocs.highApproved);
  await yes(people.director!, mocs.highApproved);
});

/** Who may give the approval each MOC waits on now: the table (person -> MOCs). */
const TABLE: Record<string, string[]> = {
  originator: [],
  implementer: [],
  hseq: [],
  verifier: [],
  approver: ["lowWaitingApprover", "highWaitingApprover"],
  // highApproved: by the rule alone (the step is closed at e, where nothing waits on anyone).
  director: ["highWaitingDirector", "extremeWaitingDirector", "highApproved"],
  director2: ["highWaitingDirector", "extremeWaitingDirector", "highApproved"],
  president: ["extremeWaitingPresident"],
  admin: [],
};

describe("who gives which approval", () => {
  it("the approval each MOC waits on", async () => {
    const stages = Object.fromEntries(
      await Promise.all(
        Object.entries(mocs).map(async ([name, doc]) => [
          name,
          pendingApproval((await loadMocAccess(doc._id, getDb()))!.approval),
        ]),
      ),
    );
    expect(stages).toEqual({
      lowWaitingApprover: "approver",
      highWaitingApprover: "approver",
      highWaitingDirector: "high",
      extremeWaitingDirector: "high",
      extremeWaitingPresident: "extreme",
      // At e the step is closed (its status); the rule alone still reads this round's approvals.
      highApproved: "high",
    });
  });

  it.each(Object.keys(TABLE))(
    "%s: the approver step's rule, its SQL twin and 'waiting on me' agree with the table",
    async (who) => {
      const person = people[who]!;
      const may: string[] = [];
      for (const [name, doc] of Object.entries(mocs)) {
        const access = (await loadMocAccess(doc._id, getDb()))!;
        if (STEPS.approver.who.may(person, access)) may.push(name);
        // mayGiveApproval is the position part; the step adds four eyes.
        if (STEPS.approver.who.may(person, access)) expect(mayGiveApproval(person, access)).toBe(true);
      }
      expect(may.sort(), who).toEqual([...TABLE[who]!].sort());
      const ids = Object.values(mocs).map((d) => d._id);
      const rows = await getDb().execute<{ id: string }>(
        sql`select m.id from mocs m where m.id in (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )}) and ${STEPS.approver.who.sql(person)}`,
      );
      expect([...rows].map((r) => r.id).sort()).toEqual(TABLE[who]!.map((name) => mocs[name]!._id).sort());
      const waiting = await getDb().execute<{ id: string }>(
        sql`select m.id from mocs m where m.id in (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})
        and not m.is_deleted and m.status <> 'decline' and (${pendingStepSql(person)}) = 'approver'`,
      );
      const expected: string[] = [];
      for (const doc of Object.values(mocs)) {
        const access = (await loadMocAccess(doc._id, getDb()))!;
        const fresh = (await loadMocDocument(doc._id))!;
        if (waitsOnActor("approver", person, access, stateOfDocument(fresh))) expected.push(doc._id);
      }
      expect([...waiting].map((r) => r.id).sort()).toEqual(expected.sort());
    },
  );

  it("a second approver is one person: who gave the High-risk stage of an Extreme MOC may not give its Extreme one", async () => {
    await getDb().execute(sql`update users set position = 'President' where id = ${people.director2!._id}`);
    try {
      const access = (await loadMocAccess(mocs.extremeWaitingPresident!._id, getDb()))!;
      expect(STEPS.approver.who.may(people.director2!, access)).toBe(false);
      const rows = await getDb().execute<{ id: string }>(
        sql`select m.id from mocs m where m.id = ${access.id} and ${STEPS.approver.who.sql(people.director2!)}`,
      );
      expect(rows).toHaveLength(0);
    } finally {
      await getDb().execute(sql`update users set position = 'Director HSEQ' where id = ${people.director2!._id}`);
    }
  });

  it("the list's 'waiting on' names the position's holders, as the record page does", async () => {
    for (const [name, doc] of Object.entries(mocs)) {
      const [row] = await getDb().execute<{ owner: string | null }>(
        sql`select ${OWNER_SQL} as owner from mocs m where m.id = ${doc._id}`,
      );
      const fresh = (await loadMocDocument(doc._id))!;
      const record = (await riskOfRecord(fresh)).waitingOn ?? currentOwner(fresh);
      expect(row!.owner, name).toBe(record);
    }
    const [row] = await getDb().execute<{ owner: string }>(
      sql`select ${OWNER_SQL} as owner from mocs m where m.id = ${mocs.highWaitingDirector!._id}`,
    );
    expect(row!.owner).toBe("Dan Director or Dee Director");
  });
});
