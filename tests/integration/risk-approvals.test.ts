/**
 * Risk ranking and risk-based approvals (issue 28 items 3 and 4,
 * docs/decisions/037-risk-ranking-and-approvals.md): levels from the matrix, incl. thresholds an
 * admin changes; High and Extreme MOCs approved in order by the approver and the holders of the
 * positions; a decline by a second approver; four eyes on each; re-ranking below the level while
 * an approval is pending drops the need, in the trail.
 */
import { sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as impactRoute from "~/routes/api+/impact";
import { levelOf, levelOfScore, mocRiskLevel, DEFAULT_THRESHOLDS, thresholdsProblem } from "~/models/risk/risk";
import { DEFAULT_RISK_SETTINGS, getRiskSettings, setRiskSettings } from "~/models/moc/risk-settings.server";
import type { PublicUser } from "~/models/people/user.server";
import { dashboard, mocListFilter, mocListQuerySchema, searchMocs } from "~/models/moc/moc-list.server";
import { mocPrintRecord } from "~/models/moc/moc-print.server";
import { computeInsights } from "~/models/insights/insights.server";
import { getDb } from "~/utils/db.server";
import { approvalGivenSql, isApprovalGiven, isMocApproved, mocApprovedSql } from "~/models/authz/authz.server";
import { loadMocAccess } from "~/models/moc/moc-query.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { approverForm, hseqForm, type Cast } from "../helpers/moc";
import {
  emailsDuring,
  expectError,
  makeCast,
  mocAt,
  post,
  stageOf,
  stepOk,
  submitStep,
  type Doc,
} from "../helpers/moc-flow";

const item = (residual: [number, number] | null, category = "Safety") => ({
  category,
  hazards: ["Loss of alarm"],
  likelihood: 4,
  severity: 4,
  controls: "Watch kept in the engine room",
  ...(residual ? { residualLikelihood: residual[0], residualSeverity: residual[1] } : {}),
});
const HIGH: [number, number] = [3, 4]; // 12
const EXTREME: [number, number] = [4, 4]; // 16
const MEDIUM: [number, number] = [2, 3]; // 6

async function rank(actor: PublicUser, mocId: string, items: unknown[]) {
  return post(impactRoute, "/api/impact", actor, { body: { moc_id: mocId, impact_assessment: items } });
}
async function rankOk(actor: PublicUser, mocId: string, items: unknown[]): Promise<Doc> {
  const res = await rank(actor, mocId, items);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}
const trail = async (mocId: string) =>
  getDb().execute<{ action: string; from_status: string; to_status: string; comment: string | null }>(
    sql`select action, from_status, to_status, comment from moc_logs where moc_id = ${mocId} order by seq`,
  );

let cast: Cast;
let director: PublicUser;
let president: PublicUser;
let admin: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  director = await makeUser({ name: "Dana Director", department: "hseq", position: "Director HSEQ" });
  president = await makeUser({ name: "Pat President", position: "President" });
  admin = await makeAdmin();
});

beforeEach(async () => {
  // The original process (tests/helpers/databases.ts `originalProcess`); the gate: risk-gate.test.ts.
  await setRiskSettings(admin, { ...DEFAULT_RISK_SETTINGS, rankingRequired: false });
});

describe("the matrix", () => {
  it("turns each pair into a level by the default thresholds: 1-4 Low, 5-9 Medium, 10-14 High, 15-25 Extreme", () => {
    const t = DEFAULT_THRESHOLDS;
    expect([1, 4, 5, 9, 10, 14, 15, 25].map((s) => levelOfScore(s, t))).toEqual([
      "low",
      "low",
      "medium",
      "medium",
      "high",
      "high",
      "extreme",
      "extreme",
    ]);
    expect(levelOf(3, 4, t)).toBe("high");
    expect(levelOf(undefined, 4, t)).toBeNull();
    expect(
      mocRiskLevel(
        [
          { residualLikelihood: 2, residualSeverity: 2 },
          { residualLikelihood: 5, residualSeverity: 3 },
        ],
        t,
      ),
    ).toBe("extreme");
    expect(mocRiskLevel([{}], t)).toBeNull();
    expect(thresholdsProblem({ lowMax: 5, mediumMax: 5, highMax: 14 })).toMatch(/above the one before/);
    expect(thresholdsProblem({ lowMax: 4, mediumMax: 9, highMax: 25 })).toMatch(/below 25/);
  });

  it("ranks a MOC by its highest residual level; items without ranks leave it not ranked (old clients)", async () => {
    const moc = await mocAt("b", cast);
    expect(
      (await rankOk(cast.implementer, moc._id, [{ category: "Safety", hazards: ["Fire"] }])).risk_level,
    ).toBeNull();
    const ranked = await rankOk(cast.implementer, moc._id, [
      item(MEDIUM),
      item(HIGH, "Environment"),
      item(null, "Ops"),
    ]);
    expect(ranked.risk_level).toBe("high");
    expect(ranked.impact_assessment[0]).toMatchObject({
      likelihood: 4,
      severity: 4,
      residualLikelihood: 2,
      residualSeverity: 3,
    });
    expect(ranked.impact_assessment[2]).not.toHaveProperty("residualLikelihood");
    expect((await trail(moc._id)).at(-1)).toMatchObject({
      action: "Updated the impact assessment",
      comment: expect.stringContaining(
        "Risk re-ranked from Not ranked to High. The approval by the Director HSEQ (High risk) is now needed as well",
      ),
    });
  });

  it("refuses a rank outside 1-5 or half a pair with 400, changing nothing", async () => {
    const moc = await mocAt("b", cast);
    for (const bad of [
      { ...item(HIGH), likelihood: 6 },
      { ...item(HIGH), residualSeverity: 0 },
      { ...item(HIGH), severity: 2.5 },
      { category: "Safety", hazards: [], residualLikelihood: 3 },
      { ...item(HIGH), controls: 7 },
    ]) {
      const res = await rank(cast.implementer, moc._id, [bad]);
      expectError(res, 400);
    }
    const [row] = await getDb().execute<{ risk_level: string | null }>(
      sql`select risk_level from mocs where id = ${moc._id}`,
    );
    expect(row!.risk_level).toBeNull();
  });

  it("admins change the thresholds (audited), re-ranking the MOCs not yet approved; others may not", async () => {
    const moc = await mocAt("b", cast);
    await rankOk(cast.implementer, moc._id, [item(HIGH)]); // 12: High
    await expect(setRiskSettings(cast.originator, { highMax: 11 })).rejects.toMatchObject({ status: 403 });
    await expect(setRiskSettings(admin, { mediumMax: 3 })).rejects.toMatchObject({ status: 400 });
    await setRiskSettings(admin, { lowMax: 4, mediumMax: 12, highMax: 20 });
    expect(await getRiskSettings()).toMatchObject({ lowMax: 4, mediumMax: 12, highMax: 20 });
    const [row] = await getDb().execute<{ risk_level: string }>(sql`select risk_level from mocs where id = ${moc._id}`);
    expect(row!.risk_level).toBe("medium");
    expect((await trail(moc._id)).at(-1)).toMatchObject({
      action: "Risk re-ranked from High to Medium",
      comment: expect.stringContaining("The approval by the Director HSEQ (High risk) is no longer needed"),
    });
    const audit = await getDb().execute<{ action: string; to_value: string }>(
      sql`select action from audit_entries where record_kind = 'settings' order by at desc limit 1`,
    );
    expect(audit[0]!.action).toBe("Changed the risk matrix");
  });
});

/** A fresh MOC at approval (`d`) ranked with `residual`. */
async function rankedAtApproval(residual: [number, number] | null): Promise<Doc> {
  const moc = await mocAt("c", cast);
  if (residual) await rankOk(cast.implementer, moc._id, [item(residual)]);
  return stepOk("hseq", cast.hseq, {
    moc_id: moc._id,
    hseq_form: hseqForm("yes"),
  });
}
/** Whether an approval is given and whether the MOC is approved, asserting each predicate agrees with its SQL twin. */
async function approvedness(mocId: string) {
  const access = (await loadMocAccess(mocId, getDb()))!;
  const [row] = await getDb().execute<{ given: boolean; approved: boolean }>(
    sql`select ${approvalGivenSql()} as given, ${mocApprovedSql()} as approved from mocs m where m.id = ${mocId}`,
  );
  expect(row).toEqual({ given: isApprovalGiven(access), approved: isMocApproved(access) });
  return row!;
}

const approve = (actor: PublicUser, moc: Doc, answer: "yes" | "no" = "yes", reason?: string) =>
  submitStep("approver", actor, { moc_id: moc._id, approver_form: approverForm(answer, reason) });

describe("risk decides who approves", () => {
  it("a Low or not-ranked MOC is approved by the approver alone, as before", async () => {
    for (const residual of [null, [1, 2] as [number, number], MEDIUM]) {
      const moc = await rankedAtApproval(residual);
      const res = await approve(cast.approver, moc);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.status).toBe("e");
      expect((await trail(moc._id)).at(-1)).toMatchObject({ action: "Approved", from_status: "d", to_status: "e" });
    }
  });

  it("a High MOC waits at d after the approver's yes, for the Director HSEQ; nobody else may give it", async () => {
    const moc = await rankedAtApproval(HIGH);
    expect((await approve(director, moc)).status).toBe(403); // the approver's comes first
    const { result: after, to } = await emailsDuring(moc._id, () => approve(cast.approver, moc));
    expect(to).toContain(director.email);
    expect(after.status, after.text).toBe(200);
    expect(after.body.data.status).toBe("d");
    // The Director HSEQ now reads the MOC as someone involved in it.
    expect(after.body.data.all_users.map((u: { _id: string }) => u._id)).toContain(director._id);
    expect((await trail(moc._id)).at(-1)).toMatchObject({
      action: "Approved as the approver (High risk); next: the High-risk approval by the Director HSEQ",
      to_status: "d",
    });
    const again = await approve(cast.approver, moc);
    expect(again.status).toBe(403);
    expect(again.body.message).toMatch(/already approved/);
    expect((await approve(president, moc)).status).toBe(403);
    const last = await approve(director, moc);
    expect(last.status, last.text).toBe(200);
    expect(last.body.data.status).toBe("e");
    const signatures = last.body.data.signatureManifestations.map((s: { role: string; meaning: string }) => [
      s.role,
      s.meaning,
    ]);
    expect(signatures).toEqual(
      expect.arrayContaining([
        ["Approver", "approved"],
        ["High-risk approver", "approved"],
      ]),
    );
  });

  it("an Extreme MOC needs the approver, then the Director HSEQ, then the President, in that order", async () => {
    const moc = await rankedAtApproval(EXTREME);
    expect(await stageOf(moc)).toBe("Approval");
    expect((await approve(president, moc)).status).toBe(403);
    const first = await approve(cast.approver, moc);
    expect(first.body.data.status).toBe("d");
    // Each staged approval is its own stage, on the record, in SQL (lists, CSV) and in print (issue 38 item 3).
    expect(await stageOf(first.body.data)).toBe("Second approval (High risk)");
    // The list's stage filter and the dashboard's tiles read the same name.
    const at = async (stage: string) =>
      (await searchMocs(cast.approver, mocListFilter(mocListQuerySchema.parse({ stage })))).rows.map((r) => r.id);
    expect(await at("Second approval (High risk)")).toContain(moc._id);
    expect(await at("Approval")).not.toContain(moc._id);
    expect(mocListQuerySchema.parse({ stage: "Nowhere" }).stage).toBeUndefined();
    expect((await dashboard(cast.approver)).counts).toContainEqual({ stage: "Second approval (High risk)", n: 1 });
    const early = await approve(president, moc);
    expect(early.status).toBe(403);
    expect(early.body.message).toMatch(/waits on the High-risk approval by the Director HSEQ/);
    const second = await approve(director, moc);
    expect(second.body.data.status).toBe("d");
    expect(await stageOf(second.body.data)).toBe("Third approval (Extreme risk)");
    // One "approved" (issue 38): an approval is given (the content frozen), the MOC is not approved
    // yet (no plan item marked done), by the predicates and their SQL twins alike.
    expect(await approvedness(moc._id)).toEqual({ given: true, approved: false });
    expect((await approve(director, moc)).status).toBe(403);
    const last = await approve(president, moc);
    expect(last.status, last.text).toBe(200);
    expect(last.body.data.status).toBe("e");
    expect(await stageOf(last.body.data)).toBe("Implementation");
    expect(await approvedness(moc._id)).toEqual({ given: true, approved: true });
    expect((await trail(moc._id)).slice(-3).map((l) => l.action)).toEqual([
      "Approved as the approver (Extreme risk); next: the High-risk approval by the Director HSEQ",
      "Approved as the Director HSEQ (Extreme risk); next: the Extreme-risk approval by the President",
      "Approved as the President (Extreme risk)",
    ]);
  });

  it("a second approver may decline, with a reason", async () => {
    const moc = await rankedAtApproval(HIGH);
    await approve(cast.approver, moc);
    expectError(await approve(director, moc, "no"), 400);
    const res = await approve(director, moc, "no", "Risk still too high");
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("decline");
    expect((await trail(moc._id)).at(-1)).toMatchObject({
      action: "Declined as the Director HSEQ (High risk)",
      comment: "Risk still too high",
    });
  });

  it("four eyes on each approval: a position holder who reviewed or made the change may not give it", async () => {
    const moc = await rankedAtApproval(HIGH);
    await getDb().execute(
      sql`update users set position = 'Director HSEQ' where id in (${cast.hseq._id}, ${cast.originator._id})`,
    );
    try {
      expect((await approve(cast.approver, moc)).status).toBe(200);
      for (const maker of [cast.hseq, cast.originator]) {
        const refused = await approve(maker, moc);
        expect(refused.status).toBe(403);
        expect(refused.body.message).toMatch(/four eyes/);
      }
      expect((await approve(director, moc)).body.data.status).toBe("e");
    } finally {
      await getDb().execute(
        sql`update users set position = null where id in (${cast.hseq._id}, ${cast.originator._id})`,
      );
    }
  });

  it("re-ranking after the HSEQ review sends the MOC back to it, and lowering it skips no approval (issue 40 item 3)", async () => {
    // An Extreme MOC reviewed by HSEQ; the implementer ranks its only item 1 x 1 at d.
    const moc = await rankedAtApproval(EXTREME);
    expect(moc.reviewed_risk_level).toBe("extreme");
    const { result: lowered, to } = await emailsDuring(moc._id, () =>
      rankOk(cast.implementer, moc._id, [item([1, 1])]),
    );
    expect(lowered).toMatchObject({ status: "c", risk_level: "low", reviewed_risk_level: "extreme" });
    expect((await trail(moc._id)).at(-1)).toMatchObject({
      action: "Back to HSEQ review: the risk was re-ranked after it",
      from_status: "d",
      to_status: "c",
      comment: "Risk re-ranked from Extreme to Low. Its approvals still follow Extreme, the level HSEQ reviewed",
    });
    // Everyone concerned is told, the one who re-ranked it excepted.
    expect(to).toEqual(expect.arrayContaining([cast.hseq.email, cast.approver.email, cast.originator.email]));
    expect(to).not.toContain(cast.implementer.email);
    // The approver cannot approve it until HSEQ has reviewed it again.
    expect((await approve(cast.approver, moc)).status).toBe(409);
    await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm("yes") });
    // Still the approver, the Director HSEQ and the President, as the Extreme level HSEQ reviewed needs.
    expect((await approve(cast.approver, moc)).body.data.status).toBe("d");
    expect((await approve(director, moc)).body.data.status).toBe("d");
    const last = await approve(president, moc);
    expect(last.status, last.text).toBe(200);
    expect(last.body.data.status).toBe("e");
  });

  it("raising the ranking after the HSEQ review sends it back too, and adds the approval the new level needs", async () => {
    const moc = await rankedAtApproval(MEDIUM);
    const raised = await rankOk(cast.implementer, moc._id, [item(HIGH)]);
    expect(raised).toMatchObject({ status: "c", risk_level: "high", reviewed_risk_level: "medium" });
    expect((await trail(moc._id)).at(-1)?.comment).toBe(
      "Risk re-ranked from Medium to High. The approval by the Director HSEQ (High risk) is now needed as well",
    );
  });

  it("re-ranking before the HSEQ review moves nothing", async () => {
    const moc = await mocAt("c", cast);
    await rankOk(cast.implementer, moc._id, [item(HIGH)]);
    const lowered = await rankOk(cast.implementer, moc._id, [item(MEDIUM)]);
    expect(lowered).toMatchObject({ status: "c", risk_level: "medium", reviewed_risk_level: null });
    expect((await trail(moc._id)).at(-1)).toMatchObject({ action: "Updated the impact assessment", to_status: "c" });
  });

  it("a second approval is the holder's turn: a step_waiting notice linking to the approval form (issue 38 item 6)", async () => {
    const moc = await rankedAtApproval(EXTREME);
    const noticeOf = async (person: PublicUser) =>
      (
        await getDb().execute<{ kind: string; link: string | null }>(
          sql`select kind, link from email_messages where record_id = ${moc._id} and to_user_id = ${person._id}
            order by created_at desc limit 1`,
        )
      )[0];
    expect((await approve(cast.approver, moc)).body.data.status).toBe("d");
    expect(await noticeOf(director)).toEqual({ kind: "step_waiting", link: `/mocs/${moc._id}/approver` });
    expect((await approve(director, moc)).body.data.status).toBe("d");
    expect(await noticeOf(president)).toEqual({ kind: "step_waiting", link: `/mocs/${moc._id}/approver` });
    // The originator is told of it as news about their MOC, linking to the record.
    expect((await noticeOf(cast.originator))?.kind).toBe("moc_decision");
  });

  it("after the approver's yes the ranking is frozen until the last approval", async () => {
    const moc = await rankedAtApproval(HIGH);
    await approve(cast.approver, moc);
    expect((await rank(cast.implementer, moc._id, [item(MEDIUM)])).status).toBe(409);
  });
});

describe("the MOC's risk where MOCs are shown", () => {
  it("the list filters by it, the print record (and so the PDF) shows it, Insight counts it", async () => {
    const moc = await mocAt("b", cast);
    const doc = await rankOk(cast.implementer, moc._id, [item(EXTREME), item(MEDIUM, "Environment")]);
    const ids = async (risk: "extreme" | "none") =>
      (await searchMocs(admin, { risk, pageSize: 100 })).rows.map((r) => r.id);
    expect(await ids("extreme")).toContain(moc._id);
    expect(await ids("none")).not.toContain(moc._id);
    expect(
      (await searchMocs(admin, { risk: "extreme", pageSize: 100 })).rows.find((r) => r.id === moc._id),
    ).toMatchObject({ riskLevel: "extreme" });
    const print = mocPrintRecord(doc, []);
    const fields = print.sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === "fields" ? b.fields : [])));
    expect(fields).toContainEqual({ label: "Risk", value: "Extreme" });
    const impact = print.sections.find((s) => s.title.startsWith("Impact assessment"));
    expect(impact?.title).toBe("Impact assessment (risk: Extreme)");
    const today = new Date().toISOString().slice(0, 10);
    const figures = await computeInsights({ from: today, to: today, department: null });
    const extreme = figures.risk.find((r) => r.level === "extreme")!;
    expect(extreme.raised).toBeGreaterThanOrEqual(1);
    expect(figures.risk.map((r) => r.level)).toEqual(["low", "medium", "high", "extreme", "none"]);
  });
});
