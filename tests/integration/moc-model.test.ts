/**
 * A model-based test of the whole MOC process (issue 38; docs/decisions/046-workflow-engine.md,
 * 037-risk-ranking-and-approvals.md, 033-closure-gates.md): fast-check generates sequences of
 * steps taken by random people (the right one, a wrong one, one who is not involved) with random
 * answers through every branch (decline at b and d, the HSEQ return, deviation and extension and
 * their decisions, the verifier's return, risk levels Low to Extreme with re-ranking, plan items
 * done and cancelled), against the real routes and database. After every command it checks what
 * must hold whatever the sequence:
 *
 * - no answer is a 5xx, and a refusal (4xx) changes nothing of the MOC, its trail or its emails;
 * - a step that is accepted moves the status only as the step table allows;
 * - the right person answering "yes" at the right step is accepted (no false refusal), and a person
 *   not involved is always refused;
 * - leaving approval (`d` -> `e`) takes every approval the risk needs: the highest level the MOC
 *   was ranked at since HSEQ reviewed it (lowering it never skips one), each by a different person,
 *   none of them the originator or the implementer (four eyes);
 * - HSEQ's review and the verification are by neither the originator nor the implementer;
 * - the MOC closes only with every plan item done or cancelled, and after a deviation or extension
 *   only once the implementer reported the completion;
 * - with the risk gate on (every third sequence), HSEQ passes only a ranked MOC, and a High or
 *   Extreme one only with its risk assessment file;
 * - the MOC's stage reads the same on the record (`mocStage`), in the lists and CSV
 *   (`MOC_STAGE_SQL`) and in print (and so the PDF).
 *
 * After the sequences the audit trail verifies, and every branch above was taken at least once. A
 * failing sequence is printed by fast-check (its seed and path replay it: `MOC_MODEL_SEED`,
 * `MOC_MODEL_PATH`; `MOC_MODEL_TRACE=1` prints each command and its answer). The seed is fixed, so
 * CI runs the same sequences each time; `MOC_MODEL_SEED=random` explores others.
 */
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as cancelPlanItemRoute from "~/routes/api+/cancelPlanItem";
import * as impactRoute from "~/routes/api+/impact";
import * as riskAssessmentRoute from "~/routes/api+/risk_assessment";
import { verifyAuditTrail } from "~/models/audit/audit-verify.server";
import { isOpenItem } from "~/models/moc/moc-closure";
import { completionReportDue } from "~/models/moc/moc-document";
import type { ExtentionsAndDeviations } from "#db/schema";
import { APPROVAL_STAGE_ACTION, approvalStages, higherLevel, type RiskLevel } from "~/models/risk/risk";
import { PENDING_APPROVAL_SQL } from "~/models/authz/risk-approval.server";
import { DEFAULT_RISK_SETTINGS, setRiskSettings } from "~/models/moc/risk-settings.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { approverForm, hseqForm, implementationForm, implementerForm, verifierForm, type Cast } from "../helpers/moc";
import { createMocOk, makeCast, mocSnapshot, post, stageOf, submitStep, type Doc } from "../helpers/moc-flow";
import { loadMocDocument } from "~/models/moc/moc-query.server";
import type { CallResult } from "../helpers/request";

const PEOPLE = [
  "originator",
  "implementer",
  "approver",
  "hseq",
  "verifier",
  "director",
  "president",
  "outsider",
] as const;
type Who = (typeof PEOPLE)[number];
const LEVELS = ["low", "medium", "high", "extreme"] as const;
/** A residual pair per level under the default thresholds (1-4 Low, 5-9 Medium, 10-14 High, 15-25 Extreme). */
const RESIDUAL: Record<RiskLevel, [number, number]> = { low: [1, 2], medium: [2, 3], high: [3, 4], extreme: [4, 4] };

/** What each accepted command may do to the status (the step table of docs/decisions/046). */
const MOVES: Record<string, string[]> = {
  implementer: ["b>c", "b>decline"],
  hseq: ["c>d", "c>b"],
  approver: ["d>d", "d>e", "d>decline"],
  implementation: ["e>f", "e>b"],
  decision: ["b>b", "b>f"],
  verifier: ["f>f"],
  "verifier-return": ["f>e"],
  report: ["f>f"],
  // A change of the ranking after HSEQ's review sends the MOC back to it (issue 38).
  rank: ["a>a", "b>b", "c>c", "d>d", "e>e", "f>f", "d>c", "e>c"],
  attach: ["a>a", "b>b", "c>c", "d>d", "e>e", "f>f"],
  plan: ["a>a", "b>b", "c>c", "d>d", "e>e", "f>f"],
  done: ["a>a", "b>b", "c>c", "d>d", "e>e", "f>f"],
  cancel: ["a>a", "b>b", "c>c", "d>d", "e>e", "f>f"],
};

type People = Record<Who, PublicUser>;
type Real = { people: People; moc: Doc };
/** What the test knows of the MOC between commands (read back after each). */
type Model = {
  status: string;
  completed: boolean;
  level: RiskLevel | null;
  /** The highest level the MOC has had since HSEQ last reviewed it (null: not reviewed in this round). */
  reviewedLevel: RiskLevel | null;
  reviewed: boolean;
  items: { id: string; done: boolean; cancelled: boolean }[];
  pending: { deviation: boolean; extension: boolean };
  trackingId: string | null;
  /** After the deviation/extension decisions, the implementer owes the completion report (issue 38). */
  reportDue: boolean;
  /** Who the MOC names as its approver and HSEQ reviewer. */
  approver: Who | null;
  hseq: Who | null;
  /** The risk gate is on for this sequence ("ranking required before HSEQ review", issue 38). */
  gate: boolean;
  /** A risk assessment file is attached. */
  attached: boolean;
};

const higher = higherLevel;

type Row = {
  status: string;
  completed: boolean;
  risk_level: RiskLevel | null;
  risk_assessment: string | null;
  action: { items?: { _id: string; done?: boolean; cancelled?: unknown }[] } | null;
  deviations: {
    _id?: string;
    deviation?: { requested?: boolean; resolved?: boolean };
    extension?: { requested?: boolean; resolved?: boolean };
    completion?: unknown;
  } | null;
  originator_id: string;
  implementer_id: string;
  approver_id: string | null;
  hseq_id: string | null;
};

async function readRow(mocId: string): Promise<Row> {
  const [row] = await getDb()
    .execute<Row>(sql`select m.status, m.completed, m.risk_level, m.risk_assessment, m.action, m.deviations,
      m.originator_id, m.implementer_id, m.approver_id, m.hseq_id from mocs m where m.id = ${mocId}`);
  return row!;
}

function read(model: Model, row: Row, people: People): void {
  const who = (id: string | null) => (PEOPLE.find((w) => people[w]._id === id) ?? null) as Who | null;
  model.approver = who(row.approver_id);
  model.hseq = who(row.hseq_id);
  model.status = row.status;
  model.completed = row.completed;
  model.level = row.risk_level;
  model.attached = Boolean(row.risk_assessment);
  model.items = (row.action?.items ?? []).map((i) => ({ id: i._id, done: !!i.done, cancelled: !!i.cancelled }));
  const open = (x?: { requested?: boolean; resolved?: boolean }) => !!x?.requested && !x.resolved;
  model.pending = { deviation: open(row.deviations?.deviation), extension: open(row.deviations?.extension) };
  model.trackingId = row.deviations?._id ?? null;
  model.reportDue = completionReportDue(row.deviations as ExtentionsAndDeviations | null);
}

/** The trail entries of the MOC, oldest first. */
const trail = (mocId: string) =>
  getDb().execute<{
    user_id: string;
    on_behalf_of: string | null;
    from_status: string;
    to_status: string;
    action: string;
  }>(
    sql`select user_id, on_behalf_of, from_status, to_status, action from moc_logs where moc_id = ${mocId} order by seq`,
  );

/** What the sequences reached, over the whole run: the test fails if a branch was never taken. */
const reached = new Map<string, number>();
const saw = (what: string) => reached.set(what, (reached.get(what) ?? 0) + 1);

abstract class Step implements fc.AsyncCommand<Model, Real> {
  /** A stray command is tried whatever the MOC's state (a step at the wrong moment must be refused). */
  stray = false;
  constructor(public who: Who) {}
  abstract readonly kind: string;
  /** Whether the MOC is at a moment where this command is meant to be tried. */
  abstract fits(model: Model): boolean;
  abstract send(real: Real, model: Model): Promise<CallResult>;
  /** Whether this command, as the model stands, must be accepted (the right person, the right moment). */
  mustPass(_model: Model): boolean {
    return false;
  }
  check(model: Readonly<Model>): boolean {
    return this.stray || this.fits(model);
  }
  async run(model: Model, real: Real): Promise<void> {
    const before = await mocSnapshot(real.moc._id);
    const from = model.status;
    const wasCompleted = model.completed;
    const reportWasDue = model.reportDue;
    const mustPass = this.mustPass(model);
    const res = await this.send(real, model);
    const what = `${this} at ${from}: ${res.status} ${res.text.slice(0, 300)}`;
    if (process.env.MOC_MODEL_TRACE)
      console.log(`${this} at ${from}: ${res.status} ${res.status >= 400 ? res.body?.message : ""}`);
    expect(res.status, what).toBeLessThan(500);
    if (mustPass) expect(res.status, what).toBe(200);
    if (this.who === "outsider") expect(res.status, what).toBeGreaterThanOrEqual(400);
    if (res.status >= 400) {
      expect(await mocSnapshot(real.moc._id), `${what}: a refusal changed the MOC`).toEqual(before);
      saw(`refused ${res.status}`);
      if (res.status === 400 && this.kind === "hseq") saw("hseq refused by the risk gate");
      return;
    }
    const row = await readRow(real.moc._id);
    read(model, row, real.people);
    saw(`${this.kind} ${from}>${row.status}${row.completed && !wasCompleted ? " (closed)" : ""}`);
    expect(MOVES[this.kind], `${what}: moved ${from} -> ${row.status}`).toContain(`${from}>${row.status}`);
    // One stage name: the record's (mocStage), the lists' and CSV's (MOC_STAGE_SQL) and the print's agree.
    saw(`stage ${await stageOf((await loadMocDocument(real.moc._id))!)}`);
    const entries = await trail(real.moc._id);
    const last = entries.at(-1)!;
    const parties = [row.originator_id, row.implementer_id];
    // HSEQ's review: four eyes, and the level it reviewed is the floor of the approvals.
    if (this.kind === "hseq" && row.status === "d") {
      expect(parties, `${what}: HSEQ reviewed their own MOC`).not.toContain(last.user_id);
      if (model.gate) {
        // The risk gate held: ranked, and a High or Extreme MOC with its risk assessment file.
        expect(row.risk_level, `${what}: HSEQ passed an unranked MOC with the gate on`).not.toBeNull();
        if (row.risk_level === "high" || row.risk_level === "extreme")
          expect(
            row.risk_assessment,
            `${what}: HSEQ passed a ${row.risk_level} MOC without its risk assessment`,
          ).toBeTruthy();
        saw(`hseq passed with the gate on (${row.risk_level})`);
      }
      model.reviewed = true;
      model.reviewedLevel = row.risk_level;
    }
    if (this.kind === "hseq" && row.status === "b") model.reviewed = false;
    if (model.reviewed) model.reviewedLevel = higher(model.reviewedLevel, row.risk_level);
    if (from === "d" && row.status === "e") {
      const arrived = entries.findLastIndex((e) => e.to_status === "d" && e.from_status !== "d");
      const round = entries.slice(arrived + 1).filter((e) => e.from_status === "d");
      const approvals = round.filter((e) => e.to_status === "e" || e.action.startsWith(APPROVAL_STAGE_ACTION));
      const needed = approvalStages(higher(model.reviewedLevel, row.risk_level));
      saw(`approved with ${needed.length} approval(s)`);
      expect(approvals.length, `${what}: approvals for ${needed.join(", ")}`).toBe(needed.length);
      const givers = approvals.map((e) => e.on_behalf_of ?? e.user_id);
      expect(new Set(givers).size, `${what}: one person gave two approvals`).toBe(givers.length);
      for (const giver of givers) expect(parties, `${what}: approved by a party to the MOC`).not.toContain(giver);
    }
    if (!wasCompleted && row.completed) {
      // The deviation path tells the truth: closing follows the completion report.
      expect(reportWasDue, `${what}: closed while the completion report was owed`).toBe(false);
      if (row.deviations?.completion) saw("closed after a deviation or extension");
      expect(parties, `${what}: verified by a party to the MOC`).not.toContain(last.user_id);
      const open = model.items.filter(isOpenItem);
      expect(open, `${what}: closed with open plan items`).toEqual([]);
    }
    if (row.status === "c" && from !== "c" && this.kind !== "implementer") {
      // Back to HSEQ review: HSEQ reviews again.
      model.reviewed = false;
    }
  }
  toString(): string {
    return `${this.kind}(${this.who})`;
  }
}

const as = async (real: Real, who: Who, route: Parameters<typeof post>[0], path: string, body: unknown) =>
  post(route, path, real.people[who], { body });

class PartB extends Step {
  readonly kind = "implementer";
  fits(m: Model) {
    return m.status === "b" && !m.pending.deviation && !m.pending.extension;
  }
  constructor(
    who: Who,
    readonly answer: "yes" | "no",
    readonly approver: Who,
    readonly hseq: Who,
  ) {
    super(who);
  }
  mustPass(m: Model) {
    return (
      this.who === "implementer" &&
      m.status === "b" &&
      !m.pending.deviation &&
      !m.pending.extension &&
      !m.trackingId &&
      ["approver", "director", "president"].includes(this.approver) &&
      this.hseq === "hseq"
    );
  }
  send(real: Real) {
    const { people } = real;
    const form =
      this.answer === "yes"
        ? implementerForm(people[this.approver], people[this.hseq])
        : {
            "details-assessed": { value: "no" },
            "necessary-justified": { value: "yes" },
            "decline-reason": { value: "Not needed" },
          };
    return submitStep("implementer", people[this.who], { moc_id: real.moc._id, implementer_form: form });
  }
  toString() {
    return `partB(${this.who}, ${this.answer}, approver ${this.approver}, hseq ${this.hseq})`;
  }
}

class Hseq extends Step {
  readonly kind = "hseq";
  fits(m: Model) {
    return m.status === "c";
  }
  constructor(
    who: Who,
    readonly answer: "yes" | "no",
  ) {
    super(who);
  }
  send(real: Real) {
    const form = this.answer === "yes" ? hseqForm("yes") : hseqForm("no", "Attach the risk assessment");
    return submitStep("hseq", real.people[this.who], { moc_id: real.moc._id, hseq_form: form });
  }
  toString() {
    return `hseq(${this.who}, ${this.answer})`;
  }
}

/** The person whose approval the MOC waits for (the system's own rule picks the actor; the checks count from the trail). */
async function approverNow(real: Real): Promise<Who> {
  const [row] = await getDb().execute<{ stage: string | null; approver: string | null }>(
    sql`select ${PENDING_APPROVAL_SQL} as stage, m.approver_id as approver from mocs m where m.id = ${real.moc._id}`,
  );
  if (row?.stage === "high") return "director";
  if (row?.stage === "extreme") return "president";
  return (Object.entries(real.people).find(([, p]) => p._id === row?.approver)?.[0] as Who | undefined) ?? "approver";
}

class Approve extends Step {
  readonly kind = "approver";
  fits(m: Model) {
    return m.status === "d";
  }
  constructor(
    who: Who,
    readonly answer: "yes" | "no",
    /** Whose turn it is, whoever that is (`who` is then filled in when it runs). */
    readonly turn = false,
  ) {
    super(who);
  }
  async run(model: Model, real: Real) {
    if (this.turn) this.who = await approverNow(real);
    return super.run(model, real);
  }
  send(real: Real) {
    const form = this.answer === "yes" ? approverForm("yes") : approverForm("no", "Too costly");
    return submitStep("approver", real.people[this.who], { moc_id: real.moc._id, approver_form: form });
  }
  toString() {
    return `approve(${this.turn ? "whose turn: " : ""}${this.who}, ${this.answer})`;
  }
}

class Implementation extends Step {
  readonly kind = "implementation";
  fits(m: Model) {
    return m.status === "e";
  }
  constructor(
    who: Who,
    readonly deviation: boolean,
    readonly extension: boolean,
  ) {
    super(who);
  }
  mustPass(m: Model) {
    return this.who === "implementer" && m.status === "e";
  }
  send(real: Real) {
    return submitStep("implementation", real.people[this.who], {
      moc_id: real.moc._id,
      implementation: implementationForm({ deviation: this.deviation, extension: this.extension }),
    });
  }
  toString() {
    return `implementation(${this.who}${this.deviation ? ", deviation" : ""}${this.extension ? ", extension" : ""})`;
  }
}

class Decision extends Step {
  readonly kind = "decision";
  fits(m: Model) {
    return m.status === "b" && m.pending[this.type];
  }
  constructor(
    who: Who,
    readonly type: "deviation" | "extension",
    readonly approved: "yes" | "no",
  ) {
    super(who);
  }
  mustPass(m: Model) {
    return m.status === "b" && m.pending[this.type] && (this.who === m.approver || this.who === m.hseq);
  }
  send(real: Real, m: Model) {
    return submitStep("deviation-extension", real.people[this.who], {
      moc_id: real.moc._id,
      deviationExtentionId: m.trackingId ?? crypto.randomUUID(),
      value: { approved: this.approved, comment: "Reviewed" },
      type: this.type,
    });
  }
  toString() {
    return `decide(${this.who}, ${this.type}, ${this.approved})`;
  }
}

class Verify extends Step {
  readonly kind: string;
  fits(m: Model) {
    return m.status === "f" && !m.completed;
  }
  constructor(
    who: Who,
    readonly close: boolean,
  ) {
    super(who);
    this.kind = close ? "verifier" : "verifier-return";
  }
  /** Returning to implementation is always open to the verifier (the HSEQ user when there is none) at `f`. */
  mustPass(m: Model) {
    return !this.close && m.status === "f" && !m.completed && this.who === "hseq";
  }
  send(real: Real) {
    return this.close
      ? submitStep("verifier", real.people[this.who], { moc_id: real.moc._id, verifier_form: verifierForm("yes") })
      : submitStep("verifier-return", real.people[this.who], {
          moc_id: real.moc._id,
          verifier_return: { "return-reason": { value: "The new controller is not labelled" } },
        });
  }
  toString() {
    return `${this.close ? "verify" : "return"}(${this.who})`;
  }
}

/** The implementer's completion report after the decisions (issue 38). */
class Report extends Step {
  readonly kind = "report";
  fits(m: Model) {
    return m.status === "f" && !m.completed && m.reportDue;
  }
  mustPass(m: Model) {
    return this.fits(m) && this.who === "implementer";
  }
  send(real: Real) {
    return submitStep("completion-report", real.people[this.who], {
      moc_id: real.moc._id,
      completion_date: new Date().toISOString().slice(0, 10),
      note: "Done as approved",
    });
  }
  toString() {
    return `report(${this.who})`;
  }
}

class Rank extends Step {
  readonly kind = "rank";
  fits(m: Model) {
    return ["b", "c", "d", "e"].includes(m.status) && !m.completed;
  }
  constructor(
    who: Who,
    readonly level: RiskLevel | null,
  ) {
    super(who);
  }
  send(real: Real) {
    const residual = this.level ? RESIDUAL[this.level] : null;
    const item = {
      category: "Safety",
      hazards: ["Loss of the bilge alarm"],
      likelihood: 4,
      severity: 4,
      controls: "Hourly rounds",
      ...(residual ? { residualLikelihood: residual[0], residualSeverity: residual[1] } : {}),
    };
    return as(real, this.who, impactRoute, "/api/impact", { moc_id: real.moc._id, impact_assessment: [item] });
  }
  toString() {
    return `rank(${this.who}, ${this.level ?? "unranked"})`;
  }
}

class Attach extends Step {
  readonly kind = "attach";
  fits(m: Model) {
    return ["b", "c", "d"].includes(m.status);
  }
  send(real: Real) {
    return as(real, this.who, riskAssessmentRoute, "/api/risk_assessment", {
      moc_id: real.moc._id,
      risk_assessment: "https://docs.example.com/risk/bilge-alarm.pdf",
    });
  }
}

class Plan extends Step {
  readonly kind = "plan";
  fits(m: Model) {
    return ["b", "c", "d", "e"].includes(m.status) && m.items.length < 3;
  }
  constructor(
    who: Who,
    readonly count: number,
  ) {
    super(who);
  }
  send(real: Real, m: Model) {
    const kept = m.items.map((i) => ({
      _id: i.id,
      description: `Item ${i.id}`,
      owner: real.people.implementer._id,
      due: null,
      done: i.done,
    }));
    const added = Array.from({ length: this.count }, (_, n) => ({
      description: `Fit the new controller, part ${n + 1}`,
      owner: real.people.implementer._id,
      due: null,
      done: false,
    }));
    return as(real, this.who, actionTableRoute, "/api/actionTable", {
      id: real.moc._id,
      action: { items: [...kept, ...added] },
    });
  }
  toString() {
    return `plan(${this.who}, +${this.count})`;
  }
}

/** One of the open plan items (by `index`, around them), else any item (a mark on a closed one is refused). */
function openItem(m: Model, index: number) {
  const open = m.items.filter(isOpenItem);
  const from = open.length ? open : m.items;
  return from[index % Math.max(1, from.length)];
}

/** Marking a plan item done (its owner's note) or cancelling it (with a reason). */
class ItemMark extends Step {
  constructor(
    readonly kind: "done" | "cancel",
    who: Who,
    readonly index: number,
  ) {
    super(who);
  }
  fits(m: Model) {
    return m.items.some(isOpenItem) && !m.completed && m.status !== "decline";
  }
  send(real: Real, m: Model) {
    const target = { moc_id: real.moc._id, plan: "action", item_id: openItem(m, this.index)?.id ?? "no-such-item" };
    return this.kind === "done"
      ? as(real, this.who, actionDoneRoute, "/api/actionDone", {
          ...target,
          note: "Fitted and tested on the bridge panel",
        })
      : as(real, this.who, cancelPlanItemRoute, "/api/cancelPlanItem", {
          ...target,
          reason: "Superseded by the class society's instruction",
        });
  }
  toString() {
    return `${this.kind}(${this.who}, #${this.index})`;
  }
}

/** Mostly the people a step is for, sometimes anyone: sequences progress and wrong people still try. */
const someone = (...likely: Who[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...likely) }, { weight: 1, arbitrary: fc.constantFrom(...PEOPLE) });
const yesMostly = fc.oneof({ weight: 5, arbitrary: fc.constant("yes" as const) }, fc.constant("no" as const));

const intended = [
  fc
    .tuple(
      someone("implementer"),
      yesMostly,
      fc.constantFrom<Who>("approver", "approver", "approver", "approver", "director", "originator", "implementer"),
      fc.constantFrom<Who>("hseq", "hseq", "hseq", "implementer"),
    )
    .map(([who, answer, approver, hseq]) => new PartB(who, answer, approver, hseq)),
  fc.tuple(someone("hseq"), yesMostly).map(([who, answer]) => new Hseq(who, answer)),
  fc
    .tuple(
      someone("approver", "director", "president"),
      fc.oneof({ weight: 8, arbitrary: fc.constant("yes" as const) }, fc.constant("no" as const)),
    )
    .map(([who, answer]) => new Approve(who, answer)),
  fc
    .oneof({ weight: 4, arbitrary: fc.constant("yes" as const) }, fc.constant("no" as const))
    .map((answer) => new Approve("approver", answer, true)),
  fc
    .tuple(someone("implementer"), fc.boolean(), fc.boolean())
    .map(([who, deviation, extension]) => new Implementation(who, deviation, extension)),
  fc
    .tuple(someone("approver", "hseq"), fc.constantFrom("deviation" as const, "extension" as const), yesMostly)
    .map(([who, type, approved]) => new Decision(who, type, approved)),
  fc
    .tuple(someone("hseq"), fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, fc.constant(false)))
    .map(([who, close]) => new Verify(who, close)),
  someone("implementer").map((who) => new Report(who)),
  fc
    .tuple(someone("implementer"), fc.constantFrom<RiskLevel | null>(null, ...LEVELS))
    .map(([who, level]) => new Rank(who, level)),
  someone("implementer").map((who) => new Attach(who)),
  fc.tuple(someone("implementer"), fc.integer({ min: 1, max: 2 })).map(([who, n]) => new Plan(who, n)),
  fc.tuple(someone("implementer"), fc.nat(3)).map(([who, i]) => new ItemMark("done", who, i)),
  fc.tuple(someone("hseq", "implementer"), fc.nat(3)).map(([who, i]) => new ItemMark("cancel", who, i)),
];

/** Each command, mostly at its moment, sometimes stray; the steps three times as often as the edits. */
const STEP_COMMANDS = 8;
const weighted = [...intended.slice(0, STEP_COMMANDS), ...intended.slice(0, STEP_COMMANDS), ...intended];
const commands = weighted.map((arb) =>
  fc.tuple(arb, fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true))).map(([command, stray]) => {
    command.stray = stray;
    return command;
  }),
);

let people: People;
let cast: Cast;
let admin: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  admin = await makeAdmin();
  const [director, president, outsider] = await Promise.all([
    makeUser({ name: "Dana Director", department: "hseq", position: "Director HSEQ" }),
    makeUser({ name: "Pat President", department: "fleet", position: "President" }),
    makeUser({ name: "Otto Outsider", department: "fleet" }),
  ]);
  people = { ...cast, director, president, outsider };
});

const RUNS = Number(process.env.MOC_MODEL_RUNS ?? 250);

/**
 * Whether a sequence runs with the risk gate on (the setting a new database has) or off (the
 * original process, which clients written to the spec use): every third sequence on, by count, so
 * the sequences themselves stay those of the seed, and the branches the gate makes rarer (staged
 * approvals, closing) are still reached.
 */
let sequences = 0;
const gateFor = () => sequences++ % 3 === 2;

describe("the MOC process, as random sequences of steps by random people", () => {
  it(
    "keeps its invariants through every branch",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 60, size: "max" }), async (cmds) => {
          const gate = gateFor();
          await setRiskSettings(admin, { ...DEFAULT_RISK_SETTINGS, rankingRequired: gate });
          const moc = await createMocOk(cast);
          const model: Model = {
            status: "b",
            completed: false,
            level: null,
            reviewedLevel: null,
            reviewed: false,
            items: [],
            pending: { deviation: false, extension: false },
            trackingId: null,
            reportDue: false,
            approver: null,
            hseq: null,
            gate,
            attached: false,
          };
          await fc.asyncModelRun(() => ({ model, real: { people, moc } }), cmds);
        }),
        {
          numRuns: RUNS,
          // A fixed seed by default: CI explores the same 250 sequences every time (no run fails by
          // chance); MOC_MODEL_SEED=random explores new ones, any number replays a printed failure.
          seed: process.env.MOC_MODEL_SEED === "random" ? undefined : Number(process.env.MOC_MODEL_SEED ?? 7),
          path: process.env.MOC_MODEL_PATH,
        },
      );
      console.log(
        [...reached]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join("\n"),
      );
      // Every branch was taken at least once.
      for (const branch of [
        "implementer b>decline",
        "hseq c>b",
        "hseq c>d",
        "approver d>d",
        "approver d>decline",
        "approved with 1 approval(s)",
        "approved with 2 approval(s)",
        "implementation e>b",
        "implementation e>f",
        "decision b>f",
        "verifier f>f (closed)",
        "verifier-return f>e",
        "report f>f",
        "closed after a deviation or extension",
        "cancel b>b",
        "refused 403",
        "hseq refused by the risk gate",
        "hseq passed with the gate on (high)",
        "stage Second approval (High risk)",
        "stage Completion report",
        "stage Deviation and extension decision",
      ])
        expect(reached.get(branch) ?? 0, `never reached: ${branch}`).toBeGreaterThan(0);
      const audit = await verifyAuditTrail();
      expect(audit.broken, JSON.stringify(audit.broken).slice(0, 2000)).toEqual([]);
    },
    30 * 60_000,
  );
});
