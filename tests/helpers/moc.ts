/**
 * The MOC test helpers' one definition of what a MOC test needs to know: the bodies of every step,
 * the people of a MOC, and who takes each pipeline step. The integration tests drive them through
 * the route modules (moc-flow.ts), the browser tests through HTTP (tests/e2e/moc-fixtures.ts).
 * Types only from the app: Playwright loads this file too.
 */
import type { MocStep } from "~/models/moc/moc-steps.server";
import type { PublicUser } from "~/models/people/user.server";

// A populated MOC document as /api returns it; tests read answers of every shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = any;

const v = <T>(value: T) => ({ value });

export const futureDate = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export function newMocBody(implementer: { _id: string }, overrides: Record<string, unknown> = {}) {
  return {
    implementer: v({ _id: implementer._id }),
    "department-of-change": v("engineering"),
    "description-of-change": v("<p>Replace the <strong>ballast pump</strong> controller</p>"),
    "reason-for-change": v("The old controller is obsolete"),
    "affected-departments": v(["engineering", "operations"]),
    "departments-to-inform": v(["fleet"]),
    ...overrides,
  };
}

export function implementerForm(
  approver: { _id: string },
  hseq: { _id: string },
  overrides: Record<string, unknown> = {},
) {
  return {
    "approver-name": v({ _id: approver._id }),
    "hseq-name": v({ _id: hseq._id }),
    "details-assessed": v("yes"),
    "necessary-justified": v("yes"),
    "target-date": v(futureDate()),
    ...overrides,
  };
}

export const hseqForm = (answer: "yes" | "no" = "yes", reason?: string) => ({
  "hseq-change-adequately": v(answer),
  "hseq-justification-satisfactory": v("yes"),
  "hseq-risk-assessment-covered": v("yes"),
  ...(reason ? { "decline-reason": v(reason) } : {}),
});

export const approverForm = (answer: "yes" | "no" = "yes", reason?: string) => ({
  "approver-changes-reviewed": v("yes"),
  "approver-moc-approved": v(answer),
  ...(reason ? { "decline-reason": v(reason) } : {}),
});

export function implementationForm(options: { deviation?: boolean; extension?: boolean } = {}) {
  return {
    "deviation-during-implementation": v(options.deviation ? "yes" : "no"),
    "moc-require-extension": v(options.extension ? "yes" : "no"),
    "moc-circulated": v("yes"),
    "implementation-as-planned": v(options.deviation ? "no" : "yes"),
    ...(options.deviation || options.extension ? {} : { "completion-date": v(futureDate(0)) }),
    ...(options.deviation ? { "deviation-details": v("<p>Used a different bracket</p>") } : {}),
    ...(options.extension ? { "extension-date": v(futureDate(60)), "extension-reason": v("Parts delayed") } : {}),
  };
}

export const verifierForm = (close: "yes" | "no" = "yes") => ({
  "action-plan-correct": v("yes"),
  "manuals-changed": v("yes"),
  "trainings-complete": v("yes"),
  "feedback-complete": v("yes"),
  "moc-effective": v("yes"),
  "close-moc": v(close),
});

export type Role = "originator" | "implementer" | "approver" | "hseq" | "verifier";
export type Cast<Person = PublicUser> = Record<Role, Person>;

/** The five people of a MOC, each in a different department where it matters. */
export const CAST: [role: Role, name: string, department: "engineering" | "operations" | "fleet" | "hseq"][] = [
  ["originator", "Olive Originator", "engineering"],
  ["implementer", "Ian Implementer", "operations"],
  ["approver", "Alma Approver", "fleet"],
  ["hseq", "Hugo Hseq", "hseq"],
  ["verifier", "Vera Verifier", "engineering"],
];

/** Part A as /api/submit/originator carries it (`implementer-name` where /api/newmoc has `implementer`). */
export function originatorForm(implementer: { _id: string }, overrides: Record<string, unknown> = {}) {
  const { implementer: _ignored, "departments-to-inform": _alsoIgnored, ...rest } = newMocBody(implementer);
  return { "implementer-name": { value: { _id: implementer._id } }, ...rest, ...overrides };
}

/** A decision on the MOC's requested deviation or extension. */
export const resolution = (
  moc: Doc,
  type: "deviation" | "extension",
  approved: "yes" | "no" = "yes",
  comment = "Reviewed",
) => ({
  moc_id: moc._id,
  deviationExtentionId: moc.extentionsAndDeviations?._id ?? crypto.randomUUID(),
  value: { approved, comment },
  type,
});

/** Each step's /api endpoint. */
export const STEP_PATH: Record<MocStep, string> = {
  originator: "/api/submit/originator",
  implementer: "/api/submit/implementer",
  hseq: "/api/submit/hseq",
  approver: "/api/submit/approver",
  implementation: "/api/submit/implementation",
  "deviation-extension": "/api/submit/deviation-extention",
  "completion-report": "/api/reportCompletion",
  verifier: "/api/submit/verifier",
  "verifier-return": "/api/submit/verifier-return",
  "temporary-restored": "/api/submit/temporary-restored",
  "temporary-confirm": "/api/submit/temporary-confirm",
  "temporary-extension": "/api/submit/temporary-extension",
  "temporary-extension-decision": "/api/submit/temporary-extension-decision",
  "temporary-permanent": "/api/submit/temporary-permanent",
};

/** A valid body for each step: the approving answer. */
export function stepBody(step: MocStep, moc: Doc, cast: Cast<{ _id: string }>): Record<string, unknown> {
  switch (step) {
    case "originator":
      return { moc_id: moc._id, originator_form: originatorForm(cast.implementer) };
    case "implementer":
      return { moc_id: moc._id, implementer_form: implementerForm(cast.approver, cast.hseq) };
    case "hseq":
      return { moc_id: moc._id, hseq_form: hseqForm() };
    case "approver":
      return { moc_id: moc._id, approver_form: approverForm() };
    case "implementation":
      return { moc_id: moc._id, implementation: implementationForm() };
    case "deviation-extension":
      return resolution(moc, "deviation");
    case "completion-report":
      return { moc_id: moc._id, completion_date: daysFromToday(0), note: "Done as approved, with the deviation" };
    case "verifier":
      return { moc_id: moc._id, verifier_form: verifierForm() };
    case "verifier-return":
      return { moc_id: moc._id, verifier_return: { "return-reason": v("The spare pump is not fitted yet") } };
    case "temporary-restored":
      return {
        moc_id: moc._id,
        temporary_restoration: { "restoration-details": v("The spare fitted, the bypass removed") },
      };
    case "temporary-confirm":
      return { moc_id: moc._id, temporary_confirmation: { "restoration-confirmed": v("yes") } };
    case "temporary-extension":
      return {
        moc_id: moc._id,
        temporary_extension: {
          "temporary-new-until": v(daysFromToday(60)),
          "temporary-extension-reason": v("The spare is delayed"),
        },
      };
    case "temporary-extension-decision":
      return { moc_id: moc._id, temporary_extension_decision: { "extension-approved": v("yes") } };
    case "temporary-permanent":
      return { moc_id: moc._id, temporary_permanent: { "permanent-reason": v("The new arrangement works better") } };
  }
}

/** A UTC date `days` from today (YYYY-MM-DD). */
export const daysFromToday = (days: number, from = new Date()) =>
  new Date(from.getTime() + days * 86_400_000).toISOString().slice(0, 10);

/** Part A's answers for a temporary change ending on `until`. */
export const temporaryPartA = (until: string) => ({ "change-type": v("temporary"), "temporary-until": v(until) });

/** The straight path after Part A: each step and who of the cast takes it (HSEQ verifies when no verifier is set). */
export const PIPELINE: { step: MocStep; by: Role }[] = [
  { step: "implementer", by: "implementer" },
  { step: "hseq", by: "hseq" },
  { step: "approver", by: "approver" },
  { step: "implementation", by: "implementer" },
  { step: "verifier", by: "hseq" },
];
