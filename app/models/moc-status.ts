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
