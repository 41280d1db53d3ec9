/** Builders for MOC bodies and a pipeline driver, used by the MOC tests. */
import type { PublicUser } from "../../app/models/user.server";

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

export type Cast = {
  originator: PublicUser;
  implementer: PublicUser;
  approver: PublicUser;
  hseq: PublicUser;
  verifier: PublicUser;
};
