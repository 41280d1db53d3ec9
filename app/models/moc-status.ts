/** Readable MOC statuses and steps, shared by the server (messages) and the pages (labels, stepper). */
export const MOC_STATUS_LABELS: Record<string, string> = {
  a: "Draft",
  b: "Implementer assessment",
  c: "HSEQ review",
  d: "Approval",
  e: "Implementation",
  f: "Verification",
  decline: "Declined",
};

export const MOC_STEP_PARTS: Record<string, string> = {
  originator: "Part A (originator)",
  implementer: "Part B (implementer assessment)",
  hseq: "Part C (HSEQ review)",
  approver: "Part D (approval)",
  implementation: "Part E (implementation)",
  "deviation-extension": "the deviation/extension resolution",
  verifier: "Part F (verification)",
};

export function mocStatusLabel(status: string, completed = false): string {
  if (completed) return "Completed";
  return MOC_STATUS_LABELS[status] ?? status;
}

/** The URL segment of each step's form (clarifications section 12). */
export const STEP_PATH: Record<string, string> = {
  originator: "originator",
  implementer: "implementer",
  hseq: "hseq",
  approver: "approver",
  implementation: "implementation",
  "deviation-extension": "deviation",
  verifier: "verifier",
};

/** Orders of the MOC list. */
export const MOC_SORTS = ["newest", "oldest", "serial", "target", "status"] as const;
export type MocSort = (typeof MOC_SORTS)[number];
