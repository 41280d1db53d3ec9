/**
 * What the print view and the PDF say of each kind of printed record (record-print.server.ts): the
 * line above its title, where "Back" leads, and whether it has the signatures, trail and
 * attachments of a MOC or PCR, and what its status line names (a record's status, the pack's filters). Its own module: the browser and the PDF worker thread load it
 * without the print model.
 */
export type PrintKind = "MOC" | "PCR" | "Circulation" | "ReviewPack";

type PrintKindText = { label: string; path: string; back: string; recordParts: boolean; statusLabel: string };

export const PRINT_KINDS: Record<PrintKind, PrintKindText> = {
  MOC: {
    label: "Management of change",
    path: "/mocs",
    back: "Back to the MOC",
    recordParts: true,
    statusLabel: "Status",
  },
  PCR: {
    label: "Procedure change request",
    path: "/pcrs",
    back: "Back to the PCR",
    recordParts: true,
    statusLabel: "Status",
  },
  Circulation: {
    label: "Read and understood: acknowledgement tracking",
    path: "/circulations",
    back: "Back to the tracking",
    recordParts: false,
    statusLabel: "Status",
  },
  // The management review pack (docs/decisions/059-management-review-pack.md): figures, no record parts.
  ReviewPack: {
    label: "Management review (ISM Code 12, ISO 9001 9.3)",
    path: "/insights/review",
    back: "Back to Insight",
    recordParts: false,
    statusLabel: "Filters",
  },
};
