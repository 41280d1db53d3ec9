/**
 * A record as it is taken out of the system: one plain description of the whole record (sections
 * of labelled answers and tables, the signature blocks, the history, the attachment list) that
 * both the print view (app/routes/mocs+/$id_.print.tsx, pcrs+/$id_.print.tsx) and the PDF
 * (app/models/records-out/record-pdf.server.ts) lay out, so paper and PDF always say the same.
 *
 * This module holds the shape and what every kind's print shares (the blocks of a stored
 * signature manifestation, the reconstructed marks, the references section); each kind builds its
 * own record in its folder (app/models/moc/moc-print.server.ts, app/models/pcr/pcr-print.server.ts),
 * its signature blocks from the stored manifestations and its history from its hash-chained trail
 * (docs/decisions/021-records-people-can-trust.md, 022-records-out.md).
 * Times are UTC ISO strings; the layouts print them as "YYYY-MM-DD HH:MM UTC".
 */
import { richTextToPlain } from "~/utils/sanitize.server";
import type { SignatureManifestation } from "../audit/audit.server";
import { capitalise, departmentLabel } from "../shared/labels";
import { utcText } from "../shared/utc-text";
import type { PrintKind } from "./print-kinds";

export { utcText };

export type PrintField = { label: string; value: string };
export type PrintBlock =
  | { kind: "fields"; fields: PrintField[] }
  | {
      kind: "table";
      title?: string;
      columns: string[];
      rows: string[][];
      empty: string;
      /** The page's link for each row's first cell (the review pack's MOCs); paper and PDF print the text. */
      links?: (string | null)[];
      /** A line after the table: what it leaves out ("and 230 more"), and where the page links for them. */
      more?: { text: string; href: string | null };
    };
export type PrintSection = { id: string; title: string; note: string | null; blocks: PrintBlock[] };

/** One signature block: who, in which role or position, when (UTC) and what their signature means. */
export type PrintSignature = {
  role: string;
  name: string | null;
  position: string | null;
  at: string | null;
  meaning: string;
  state: "signed" | "commented" | "unsigned";
  /** The typed name (null for a drawn signature: see `image`). */
  mark: string | null;
  /** A drawn signature: its PNG or JPEG image as a data URL, printed as the image. */
  image: string | null;
  comment: string | null;
  /** Null for a stored manifestation; for a signature given before they were kept, why it was rebuilt. */
  reconstructed: string | null;
};

/** One entry of the audit trail, oldest first. */
export type PrintHistoryEntry = { at: string; who: string; action: string; detail: string | null };

export type PrintAttachment = {
  name: string;
  kind: string;
  size: number;
  contentType: string;
  sha256: string | null;
  uploadedBy: string | null;
  uploadedAt: string | null;
  removed: boolean;
};

export type PrintRecord = {
  /** "Circulation": one circulation's acknowledgement tracking (circulation-outputs.server.ts), without signatures, trail or attachments. */
  kind: PrintKind;
  id: string;
  serial: string;
  /** "MOC 12-2026". */
  title: string;
  status: string;
  /** "MOC-12-2026.pdf". */
  fileName: string;
  sections: PrintSection[];
  signatures: PrintSignature[];
  history: PrintHistoryEntry[];
  attachments: PrintAttachment[];
  generatedAt: string;
};

/** A stored answer as printed: "—" for none, Yes/No, a list of departments, a person's name. */
export const printText = (value: unknown): string => {
  if (value === undefined || value === null || value === "") return "—";
  if (value === true || value === "yes") return "Yes";
  if (value === false || value === "no") return "No";
  if (Array.isArray(value)) return value.length ? value.map((v) => departmentLabel(String(v))).join(", ") : "None";
  if (typeof value === "object" && "name" in value) return String((value as { name: unknown }).name);
  return String(value);
};
/** Rich text as printed: plain text, "—" for none. */
export const printPlain = (html: unknown) =>
  typeof html === "string" && html.trim() ? richTextToPlain(html) || "—" : "—";
/** A record's PDF file name: "MOC-12-2026.pdf". */
export const printFileName = (kind: string, serial: string) => `${kind}-${serial.replace(/[^A-Za-z0-9-]+/g, "-")}.pdf`;
/** "Name (Position)", "—" for nobody. */
export const personWithPosition = (user: { name: string; position?: string | null } | null | undefined) =>
  user ? (user.position ? `${user.name} (${user.position})` : user.name) : "—";

// ---------------------------------------------------------------------------------------------
// Signatures and history: what every kind's print shares

/** What a reconstructed block or entry says about itself, so nobody mistakes it for a stored one. */
export const RECONSTRUCTED_SIGNATURE =
  "Signed before signature manifestations were kept: reconstructed from the record as it was stored";
export const RECONSTRUCTED_HISTORY = "Before the audit trail: reconstructed from the record's timestamps";

/** A stored signature manifestation as a block: the printed name and position at the time of signing. */
export const manifestationBlock = (m: SignatureManifestation, extra: Partial<PrintSignature> = {}): PrintSignature => ({
  // A delegate's signature says whom it was given for: "acting Approver, on behalf of B".
  role: m.onBehalfOf ? `${m.role}, on behalf of ${m.onBehalfOf.name}` : m.role,
  // The name at signing; an account renamed since says so beside it (decision 026).
  name: m.accountName ? `${m.printedName} (account now named ${m.accountName})` : m.printedName,
  position: m.position ?? m.role,
  at: m.signedAt,
  meaning: capitalise(m.meaning),
  state: "signed",
  mark: null,
  image: null,
  comment: null,
  reconstructed: null,
  ...extra,
});

/** A drawn signature's image, when it is a PNG or JPEG data URL (what print and the PDF can show). */
export function drawnImage(signature: unknown): string | null {
  if (typeof signature !== "string") return null;
  return /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(signature) ? signature : null;
}

/** A comment as a history entry quotes it. */
export const quotedComment = (comment: string | null) => (comment ? `“${comment}”` : null);
/** A history entry's details joined, null for none. */
export const joinedDetail = (parts: (string | null)[]) => parts.filter(Boolean).join(" · ") || null;

/** Labelled answers as one block. */
export const printFields = (rows: [string, unknown][]): PrintBlock => ({
  kind: "fields",
  fields: rows.map(([label, value]) => ({ label, value: printText(value) })),
});

/**
 * A record's external references as printed (issue 42, docs/decisions/057-record-links-and-references.md):
 * "References", each type and number with its address written out (paper and PDF cannot follow a link).
 */
export function referencesPrintSection(
  references: {
    typeName: string;
    ref: string;
    url: string | null;
    addedBy: { name: string } | null;
    addedAt: string;
  }[],
): PrintSection {
  return {
    id: "references",
    title: "References",
    note: null,
    blocks: [
      {
        kind: "table",
        columns: ["Type", "Number", "Address", "Added by", "Added (UTC)"],
        rows: references.map((r) => [r.typeName, r.ref, r.url ?? "—", r.addedBy?.name ?? "—", utcText(r.addedAt)]),
        empty: "No external references.",
      },
    ],
  };
}
