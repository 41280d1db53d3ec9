/**
 * The risk gate (issue 38 item 1, docs/decisions/037-risk-ranking-and-approvals.md): with "ranking
 * required before HSEQ review" on (a new database's default), HSEQ's "the risk assessment covers
 * the change: yes" is a 400 on that field while the MOC is not ranked, or is High or Extreme
 * without its risk assessment file; the implementer's "no significant hazard" declaration ranks a
 * MOC without items Low; the setting over GET/PUT /api/riskSettings, admins only, audited.
 */
import { sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as impactRoute from "~/routes/api+/impact";
import * as riskAssessmentRoute from "~/routes/api+/risk_assessment";
import * as riskSettingsRoute from "~/routes/api+/riskSettings";
import { DEFAULT_RISK_SETTINGS, RISK_SETTINGS_RECORD, setRiskSettings } from "~/models/moc/risk-settings.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin } from "../helpers/factories";
import { hseqForm, type Cast } from "../helpers/moc";
import { makeCast, mocAt, post, stepOk, submitStep, tokenOf, type Doc } from "../helpers/moc-flow";

const ranked = (residual: [number, number]) => ({
  category: "Safety",
  hazards: ["Alarm bypassed while the sensor is replaced"],
  likelihood: 4,
  severity: 4,
  controls: "Engineer on watch in the machinery space",
  residualLikelihood: residual[0],
  residualSeverity: residual[1],
});

const impact = (actor: PublicUser, body: Record<string, unknown>) => post(impactRoute, "/api/impact", actor, { body });
const trailLength = async (mocId: string) =>
  (await getDb().execute(sql`select 1 from moc_logs where moc_id = ${mocId}`)).length;
const status = async (mocId: string) =>
  (await getDb().execute<{ status: string }>(sql`select status from mocs where id = ${mocId}`))[0]!.status;

let cast: Cast;
let admin: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  admin = await makeAdmin();
});

beforeEach(async () => {
  await setRiskSettings(admin, DEFAULT_RISK_SETTINGS);
});

/** HSEQ's passing review; must be refused on `field` with a message matching `message`, nothing written. */
async function expectGateRefuses(moc: Doc, message: RegExp) {
  const before = await trailLength(moc._id);
  const res = await submitStep("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
  expect(res.status, res.text).toBe(400);
  expect(res.body.message).toMatch(message);
  expect(res.body.issues).toContainEqual({
    path: expect.stringContaining("hseq-risk-assessment-covered"),
    message: expect.stringMatching(message),
  });
  expect(await status(moc._id)).toBe("c");
  expect(await trailLength(moc._id)).toBe(before);
}

describe("the setting", () => {
  it("is on for a new database and in the defaults", async () => {
    const [column] = await getDb().execute<{ column_default: string }>(
      sql`select column_default from information_schema.columns where table_name = 'risk_settings' and column_name = 'ranking_required'`,
    );
    expect(column!.column_default).toBe("true");
    expect(DEFAULT_RISK_SETTINGS.rankingRequired).toBe(true);
  });

  it("is read by anyone signed in and changed by admins only, what the body names, in the audit trail", async () => {
    const read = await api(riskSettingsRoute, {
      method: "GET",
      path: "/api/riskSettings",
      token: await tokenOf(cast.originator),
    });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual({
      lowMax: 4,
      mediumMax: 9,
      highMax: 14,
      highPosition: "Director HSEQ",
      extremePosition: "President",
      rankingRequired: true,
    });

    const refused = await putSettings(cast.hseq, { rankingRequired: false });
    expect(refused.status).toBe(403);

    const off = await putSettings(admin, { rankingRequired: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.data).toMatchObject({ rankingRequired: false, lowMax: 4, highMax: 14 });
    const [entry] = await getDb().execute<{ action: string; to_value: string }>(
      sql`select action, to_value from audit_entries where record_id = ${RISK_SETTINGS_RECORD} order by seq desc limit 1`,
    );
    expect(entry!.to_value).toMatch(/ranking not required before HSEQ review/);

    for (const body of [{ rankingRequired: "yes" }, { rankingRequired: true, colour: "red" }]) {
      const bad = await putSettings(admin, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe("with the gate on", () => {
  it("refuses HSEQ's yes on a MOC not ranked, and accepts a return", async () => {
    const moc = await mocAt("c", cast);
    await expectGateRefuses(moc, /not ranked/);
    // Answering that it does not (sending it back for the assessment) is always possible.
    const returned = await stepOk("hseq", cast.hseq, {
      moc_id: moc._id,
      hseq_form: { ...hseqForm("no", "Rank the risk"), "hseq-risk-assessment-covered": { value: "no" } },
    });
    expect(returned.status).toBe("b");
  });

  it("refuses it while an item lacks a rank, naming the item", async () => {
    const moc = await mocAt("c", cast);
    const { residualLikelihood: _l, residualSeverity: _s, ...unranked } = ranked([1, 2]);
    const saved = await impact(cast.implementer, {
      moc_id: moc._id,
      impact_assessment: [ranked([1, 2]), { ...unranked, category: "Environment" }],
    });
    expect(saved.status, saved.text).toBe(200);
    await expectGateRefuses(moc, /impact item 2 \(Environment\)/);
  });

  it("passes a ranked Medium MOC without a risk assessment file", async () => {
    const moc = await mocAt("c", cast);
    expect((await impact(cast.implementer, { moc_id: moc._id, impact_assessment: [ranked([2, 3])] })).status).toBe(200);
    const reviewed = await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
    expect(reviewed.status).toBe("d");
    expect(reviewed.reviewed_risk_level).toBe("medium");
  });

  it("refuses it on a High MOC until its risk assessment file is attached", async () => {
    const moc = await mocAt("c", cast);
    expect((await impact(cast.implementer, { moc_id: moc._id, impact_assessment: [ranked([3, 4])] })).status).toBe(200);
    await expectGateRefuses(moc, /High-risk MOC needs its risk assessment file attached/);
    const attached = await post(riskAssessmentRoute, "/api/risk_assessment", cast.implementer, {
      body: { moc_id: moc._id, risk_assessment: "https://docs.example.com/ra-alarm-bypass.pdf" },
    });
    expect(attached.status, attached.text).toBe(200);
    const reviewed = await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
    expect(reviewed.status).toBe("d");
  });

  it("accepts the implementer's no-significant-hazard declaration as a Low ranking", async () => {
    const moc = await mocAt("c", cast);
    const byOriginator = await impact(cast.originator, {
      moc_id: moc._id,
      impact_assessment: [],
      no_significant_hazard: "A label change",
    });
    expect(byOriginator.status).toBe(403);
    const withItems = await impact(cast.implementer, {
      moc_id: moc._id,
      impact_assessment: [ranked([1, 1])],
      no_significant_hazard: "A label change",
    });
    expect(withItems.status).toBe(400);
    expect(withItems.body.issues[0].path).toMatch(/no_significant_hazard/);

    const declared = await impact(cast.implementer, {
      moc_id: moc._id,
      impact_assessment: [],
      no_significant_hazard: "Only the wording of a placard changes; nothing is operated differently",
    });
    expect(declared.status, declared.text).toBe(200);
    expect(declared.body.data.risk_level).toBe("low");
    expect(declared.body.data.no_significant_hazard).toMatchObject({
      reason: "Only the wording of a placard changes; nothing is operated differently",
      by: cast.implementer._id,
    });
    expect(declared.body.data.logs.at(-1)).toMatchObject({ action: "Declared no significant hazard" });

    const reviewed = await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
    expect(reviewed.status).toBe("d");
  });

  it("lets items replace a declaration, and null withdraw it", async () => {
    const moc = await mocAt("b", cast);
    const reason = "Paperwork only";
    await impact(cast.implementer, { moc_id: moc._id, impact_assessment: [], no_significant_hazard: reason });
    const withItems = await impact(cast.implementer, { moc_id: moc._id, impact_assessment: [ranked([2, 3])] });
    expect(withItems.body.data).toMatchObject({ no_significant_hazard: null, risk_level: "medium" });
    await impact(cast.implementer, { moc_id: moc._id, impact_assessment: [], no_significant_hazard: reason });
    const withdrawn = await impact(cast.implementer, {
      moc_id: moc._id,
      impact_assessment: [],
      no_significant_hazard: null,
    });
    expect(withdrawn.body.data).toMatchObject({ no_significant_hazard: null, risk_level: null });
  });
});

describe("with the gate off", () => {
  it("lets clients written to the original spec pass an unranked MOC", async () => {
    expect((await putSettings(admin, { rankingRequired: false })).status).toBe(200);
    const moc = await mocAt("c", cast);
    const reviewed = await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
    expect(reviewed.status).toBe("d");
  });
});

async function putSettings(actor: { _id: string }, body: unknown) {
  return api(riskSettingsRoute, {
    method: "PUT",
    path: "/api/riskSettings",
    token: await tokenOf(actor),
    body,
  });
}
