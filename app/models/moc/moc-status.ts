/** Readable MOC statuses, shared by the server (messages) and the pages (labels, stepper). */
export const MOC_STATUS_LABELS: Record<string, string> = {
  a: "Draft",
  b: "Implementer assessment",
  c: "HSEQ review",
  d: "Approval",
  e: "Implementation",
  f: "Verification",
  decline: "Declined",
};

/**
 * A status's own words, for a status as such (a trail's from and to, the list's status filter).
 * Where a MOC stands now is its stage (`mocStage` in moc-steps.server.ts), which names the waiting
 * step more precisely ("Deviation decision", "Completion report") and falls back on these.
 */
export function mocStatusLabel(status: string, completed = false): string {
  if (completed) return "Completed";
  return MOC_STATUS_LABELS[status] ?? status;
}

/** Orders of the MOC list. */
export const MOC_SORTS = ["newest", "oldest", "serial", "target", "status", "temporary"] as const;
export type MocSort = (typeof MOC_SORTS)[number];

/** The list filters on temporary changes: in effect (extension pending included), ending soon, expired. */
export const TEMPORARY_FILTERS = ["in-effect", "ending-soon", "expired"] as const;
export type TemporaryFilter = (typeof TEMPORARY_FILTERS)[number];

/** How many days before its end a temporary change counts as "ending soon". */
export const ENDING_SOON_DAYS = 14;
