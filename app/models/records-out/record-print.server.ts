/**
 * A MOC or a PCR as it is taken out of the system: one plain description of the whole record
 * (sections of labelled answers and tables, the signature blocks, the history, the attachment
 * list) that both the print view (app/routes/mocs+/$id_.print.tsx, pcrs+/$id_.print.tsx) and the PDF
 * (app/models/records-out/record-pdf.server.ts) lay out, so paper and PDF always say the same.
 *
 * The signature blocks come from `recordSignatures` (the stored signature manifestations) and the
 * history from `recordHistory` (the hash-chained audit trail), one function each for both kinds of
 * record (docs/decisions/021-records-people-can-trust.md, 022-records-out.md).
 * Times are UTC ISO strings; the layouts print them as "YYYY-MM-DD HH:MM UTC".
 */
import { PCR_ROLES } from "#db/schema/enums";
import { richTextToPlain } from "~/utils/sanitize.server";
import type { HistoryEntry } from "../audit/audit.server";
import type { SignatureManifestation } from "../audit/audit.server";
import { fillsSlot } from "../audit/signature-roles";
import type { MocDocument, UserJson } from "../moc/moc-document";
import { capitalise, departmentLabel } from "../shared/labels";
import { riskLabel } from "../risk/risk";
import { mocName, titleOf } from "../moc/moc-names";
import { utcText } from "../shared/utc-text";
import type { PrintKind } from "./print-kinds";
import { DEVIATION_DECISION, MOC_CLOSED_ACTION, mocStage, stateOfDocument, trailStages } from "../moc/moc-steps.server";
import { describeMocParts, partNote } from "../moc/moc-parts.server";
import type { PcrDocument } from "../pcr/pcr.server";
import type { RecordReference } from "../records/references.server";

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

/** What a record is made from: the populated document of either kind. */
export type RecordSource = { kind: "moc"; doc: MocDocument } | { kind: "pcr"; pcr: PcrDocument; trail: HistoryEntry[] };

const text = (value: unknown): string => {
  if (value === undefined || value === null || value === "") return "—";
  if (value === true || value === "yes") return "Yes";
  if (value === false || value === "no") return "No";
  if (Array.isArray(value)) return value.length ? value.map((v) => departmentLabel(String(v))).join(", ") : "None";
  if (typeof value === "object" && "name" in value) return String((value as { name: unknown }).name);
  return String(value);
};
const plain = (html: unknown) => (typeof html === "string" && html.trim() ? richTextToPlain(html) || "—" : "—");
const fileNameOf = (kind: "MOC" | "PCR", serial: string) => `${kind}-${serial.replace(/[^A-Za-z0-9-]+/g, "-")}.pdf`;
const personWithPosition = (user: Pick<UserJson, "name" | "position"> | null | undefined) =>
  user ? (user.position ? `${user.name} (${user.position})` : user.name) : "—";

// ---------------------------------------------------------------------------------------------
// Signatures and history: one function each

/** What a reconstructed block or entry says about itself, so nobody mistakes it for a stored one. */
export const RECONSTRUCTED_SIGNATURE =
  "Signed before signature manifestations were kept: reconstructed from the record as it was stored";
export const RECONSTRUCTED_HISTORY = "Before the audit trail: reconstructed from the record's timestamps";

/** A stored signature manifestation as a block: the printed name and position at the time of signing. */
const manifestationBlock = (m: SignatureManifestation, extra: Partial<PrintSignature> = {}): PrintSignature => ({
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

/** Who decided at each status, as `signs` names them in moc-steps.server.ts (legacy records only). */
function legacyMocRole(doc: MocDocument, status: string | null, actorId: string | undefined): string {
  if (status === "b") return "Implementer";
  if (status === "c") return "HSEQ reviewer";
  if (status === "d") return "Approver";
  if (status === "e") return actorId && actorId === doc.approver_id?._id ? "Approver" : "HSEQ reviewer";
  if (status === "f") return doc.verifier_id ? "Verifier" : "HSEQ reviewer (verifying)";
  return "Participant";
}

/**
 * Only for decisions taken before signature manifestations were kept: the log actions of the
 * steps that sign (decision 021: b, c, d, the deviation/extension decisions, f) and what they
 * meant. A MOC decision taken since then has its stored manifestation instead.
 */
const LEGACY_MOC_DECISIONS: [RegExp, (action: string) => string][] = [
  [/^Submitted the implementer assessment$/, () => "Assessed the change as necessary and justified"],
  [/^Declined at the implementer assessment$/, () => "Declined the change at the implementer assessment"],
  [/^HSEQ review passed$/, () => "Reviewed the change and its risk assessment (HSEQ)"],
  [/^Returned to the implementer by HSEQ$/, () => "Returned the change to the implementer (HSEQ)"],
  [/^Approved$/, () => "Approved the change"],
  [/^Declined by the approver$/, () => "Declined the change"],
  [DEVIATION_DECISION, (action) => action],
  [new RegExp(`^${MOC_CLOSED_ACTION}$`), () => "Verified the change as effective and closed the MOC"],
  [/^Recorded the verification/, () => "Recorded the verification; the MOC stays open"],
];

function mocSignatures(doc: MocDocument): PrintSignature[] {
  const decisions = doc.logs.flatMap((log) => {
    const match = LEGACY_MOC_DECISIONS.find(([pattern]) => pattern.test(log.action));
    return match ? [{ log, meaning: match[1](log.action) }] : [];
  });
  // Every decision since manifestations were kept wrote one, in the same transaction as its log
  // entry; so the decisions without one are the earliest (those taken before).
  const manifestations = doc.signatureManifestations;
  const legacyCount = Math.max(0, decisions.length - manifestations.length);
  const legacy = decisions.slice(0, legacyCount).map(({ log, meaning }): PrintSignature => ({
    role: legacyMocRole(doc, log.from, log.userId?._id),
    name: log.userId?.name ?? null,
    position: log.userId?.position ?? null,
    at: log.at,
    meaning,
    state: "signed",
    mark: null,
    image: null,
    comment: log.comment,
    reconstructed: RECONSTRUCTED_SIGNATURE,
  }));
  // The decision's own log entry carries its comment (a decline reason, a verdict's remark): the
  // entry its signer wrote in the same transaction (the same time, to the second), never one of a
  // later decision (docs/decisions/035-decision-context-and-one-record-description.md: Part D once printed a later deviation decision's comment).
  const unpaired = doc.logs.slice(legacyCount ? doc.logs.indexOf(decisions[legacyCount - 1]!.log) + 1 : 0);
  const ownLog = (m: SignatureManifestation) => {
    const signed = Date.parse(m.signedAt);
    const index = unpaired.findIndex(
      (log) => log.userId?._id === m.signerId && Math.abs(Date.parse(log.at) - signed) < 2000,
    );
    return index < 0 ? null : unpaired.splice(index, 1)[0]!;
  };
  return [...legacy, ...manifestations.map((m) => manifestationBlock(m, { comment: ownLog(m)?.comment ?? null }))];
}

/** A drawn signature's image, when it is a PNG or JPEG data URL (what print and the PDF can show). */
export function drawnImage(signature: unknown): string | null {
  if (typeof signature !== "string") return null;
  return /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(signature) ? signature : null;
}

function pcrSignatures(pcr: PcrDocument): PrintSignature[] {
  const unused = [...pcr.signatureManifestations];
  const take = (role: string, signerId: string | null | undefined) => {
    const index = unused.findIndex((m) => fillsSlot(m, role, signerId));
    return index < 0 ? null : unused.splice(index, 1)[0]!;
  };
  const stateOf = (signature: unknown): PrintSignature["state"] =>
    typeof signature === "string" ? "signed" : signature === null ? "commented" : "unsigned";
  const markOf = (signature: unknown) =>
    typeof signature !== "string"
      ? null
      : signature.startsWith("data:image/")
        ? drawnImage(signature)
          ? null
          : "Drawn signature (an image that cannot be printed)"
        : signature;
  const chain = pcr.signatures.map((slot): PrintSignature => {
    const signer = slot.signedBy ?? (slot.Name === PCR_ROLES[0] ? pcr.originator : null);
    const state = stateOf(slot.Signature);
    const stored = state === "signed" ? take(slot.Name, signer?._id) : null;
    const common = { mark: markOf(slot.Signature), image: drawnImage(slot.Signature), comment: slot.Comments || null };
    if (stored) return manifestationBlock(stored, common);
    return {
      role: slot.Name,
      name: state === "unsigned" ? null : (signer?.name ?? null),
      position: state === "unsigned" ? null : (signer?.position ?? slot.Name),
      at: slot.signedAt,
      meaning: `Reviewed and approved as ${slot.Name}`,
      state,
      ...common,
      reconstructed: state === "signed" ? RECONSTRUCTED_SIGNATURE : null,
    };
  });
  const parties = pcr.affectedParties.map((party): PrintSignature => {
    const state = stateOf(party.Signature);
    const stored = state === "signed" ? take("Affected party", party.Name.value) : null;
    const common = {
      mark: markOf(party.Signature),
      image: drawnImage(party.Signature),
      comment: party.Comments || null,
    };
    if (stored) return manifestationBlock(stored, common);
    return {
      role: "Affected party",
      name: party.user?.name ?? null,
      position: party.user
        ? [departmentLabel(party.user.department), party.user.position].filter(Boolean).join(", ")
        : null,
      at: party.signedAt,
      meaning: "Reviewed as an affected party",
      state,
      ...common,
      reconstructed: state === "signed" ? RECONSTRUCTED_SIGNATURE : null,
    };
  });
  // A manifestation whose slot or party no longer holds it (a party removed after signing) still prints.
  return [...chain, ...parties, ...unused.map((m) => manifestationBlock(m))];
}

/**
 * The signature blocks of a record, from its stored signature manifestations (signer's printed
 * name and position at the time, role, UTC time, meaning; docs/decisions/021). A MOC's are its
 * signed decisions; a PCR's are its six chain slots (signed or not) and then its affected parties.
 * A signature given before manifestations were kept is reconstructed as before and marked
 * `reconstructed`.
 */
export function recordSignatures(source: RecordSource): PrintSignature[] {
  return source.kind === "moc" ? mocSignatures(source.doc) : pcrSignatures(source.pcr);
}

const PCR_STATUS_LABEL: Record<string, string> = {
  pending: "Collecting signatures",
  finished: "Finished",
  withdrawn: "Withdrawn",
};
const quoted = (comment: string | null) => (comment ? `“${comment}”` : null);
const joined = (parts: (string | null)[]) => parts.filter(Boolean).join(" · ") || null;

/** A PCR's events as its stored fields date them: only for what happened before its audit trail. */
function pcrReconstructedHistory(pcr: PcrDocument): PrintHistoryEntry[] {
  const entries: PrintHistoryEntry[] = [
    {
      at: pcr.createdAt,
      who: pcr.originator?.name ?? "—",
      action: pcr.cloned ? `Created as a copy of PCR ${pcr.previous_serial_num ?? ""}`.trim() : "Created",
      detail: RECONSTRUCTED_HISTORY,
    },
  ];
  for (const block of pcrSignatures(pcr)) {
    if (block.state === "unsigned" || !block.at) continue;
    entries.push({
      at: block.at,
      who: block.name ?? "—",
      action: block.state === "signed" ? `Signed as ${block.role}` : `Commented as ${block.role}`,
      detail: joined([quoted(block.comment), RECONSTRUCTED_HISTORY]),
    });
  }
  if (pcr.finishedAt) entries.push({ at: pcr.finishedAt, who: "—", action: "Finished", detail: RECONSTRUCTED_HISTORY });
  return entries;
}

/**
 * The audit trail of a record, oldest first, as its hash-chained trail holds it: a MOC's
 * `moc_logs` entries (its document's `logs`), a PCR's `audit_entries` (created, edited, signed,
 * commented, parties changed, cloned, attachments, finished, deleted). What a PCR did before its
 * trail began is reconstructed from its timestamps, marked as such.
 */
export function recordHistory(source: RecordSource): PrintHistoryEntry[] {
  if (source.kind === "moc") {
    return source.doc.logs.map((log) => ({
      at: log.at,
      who: log.userId?.name ?? "—",
      action: log.action,
      detail: joined([
        log.from && log.to && log.from !== log.to
          ? trailStages({ from: log.from, to: log.to, action: log.action }).join(" → ")
          : null,
        quoted(log.comment),
      ]),
    }));
  }
  const { pcr, trail } = source;
  const stored = trail.map((entry): PrintHistoryEntry => ({
    at: entry.at,
    who: entry.actorName ?? "—",
    action: entry.action,
    detail: joined([
      entry.from && entry.to && entry.from !== entry.to
        ? `${PCR_STATUS_LABEL[entry.from] ?? entry.from} → ${PCR_STATUS_LABEL[entry.to] ?? entry.to}`
        : null,
      quoted(entry.comment),
    ]),
  }));
  // The trail begins with the PCR's creation; anything dated over a second before it predates the trail.
  const trailBegan = trail.length ? Date.parse(trail[0]!.at) - 1000 : Infinity;
  const before = pcrReconstructedHistory(pcr)
    .filter((entry) => Date.parse(entry.at) < trailBegan)
    .sort((a, b) => a.at.localeCompare(b.at));
  return [...before, ...stored];
}

// ---------------------------------------------------------------------------------------------
// The records

const fields = (rows: [string, unknown][]): PrintBlock => ({
  kind: "fields",
  fields: rows.map(([label, value]) => ({ label, value: text(value) })),
});

/** A MOC as it is printed. */
export function mocPrintRecord(doc: MocDocument, attachments: PrintAttachment[], now = new Date()): PrintRecord {
  const source: RecordSource = { kind: "moc", doc };
  const status = mocStage(stateOfDocument(doc));
  const described = describeMocParts(doc);
  const sections: PrintSection[] = [
    {
      id: "people",
      title: "People and dates",
      note: null,
      blocks: [
        fields([
          ["Status", status],
          ["Risk", riskLabel(doc.risk_level)],
          ["Originator", personWithPosition(doc.originator_id)],
          ["Implementer", personWithPosition(doc.implementer_id)],
          ["HSEQ user", personWithPosition(doc.hseq_id)],
          ["Approver", personWithPosition(doc.approver_id)],
          ["Verifier", doc.verifier_id ? personWithPosition(doc.verifier_id) : "— (the HSEQ user verifies)"],
          ["Target date", doc.target_date],
          ["Raised", utcText(doc.createdAt)],
          ["Last changed", utcText(doc.updatedAt)],
          ["Cloned from an earlier MOC", doc.cloned ? "Yes" : "No"],
          ...(doc.decline
            ? ([
                ["Declined at", doc.decline.stage === "d" ? "Approval (Part D)" : "Implementer assessment (Part B)"],
                ["Decline reason", doc.decline.reason],
              ] as [string, unknown][])
            : []),
        ]),
      ],
    },
    // The parts, the decisions and the plans: the one description the record page reads too.
    ...described.parts.map((p): PrintSection => ({
      id: p.id,
      title: p.title,
      note: p.id === "deviations" ? `Requested ${utcText(p.when)}` : partNote(p),
      blocks: [
        ...(p.fields.length
          ? [{ kind: "fields", fields: p.fields.map((f) => ({ label: f.label, value: f.text })) } as PrintBlock]
          : []),
        ...(p.history
          ? [
              {
                kind: "table",
                title: p.history.title,
                columns: ["Time (UTC)", "Who", "What", "Comment"],
                rows: p.history.entries.map((e) => [utcText(e.at), e.who, e.what, e.comment ?? "—"]),
                empty: "",
              } as PrintBlock,
            ]
          : []),
      ],
    })),
    ...described.tables.map((t): PrintSection => ({
      id: t.id,
      title: t.title,
      note: null,
      blocks: [{ kind: "table", columns: t.columns, rows: t.rows, empty: t.empty }],
    })),
  ];
  return {
    kind: "MOC",
    id: doc._id,
    serial: doc.serial_num,
    title: mocName(doc.serial_num, titleOf(doc.originator_form)),
    status,
    fileName: fileNameOf("MOC", doc.serial_num),
    sections,
    signatures: recordSignatures(source),
    history: recordHistory(source),
    attachments,
    generatedAt: now.toISOString(),
  };
}

/** A PCR as it is printed. */
export function pcrPrintRecord(
  pcr: PcrDocument,
  trail: HistoryEntry[],
  attachments: PrintAttachment[],
  now = new Date(),
): PrintRecord {
  const source: RecordSource = { kind: "pcr", pcr, trail };
  const status = PCR_STATUS_LABEL[pcr.status] ?? pcr.status;
  return {
    kind: "PCR",
    id: pcr._id,
    serial: pcr.serial_num,
    title: pcr.form.title ? `PCR ${pcr.serial_num} — ${pcr.form.title}` : `PCR ${pcr.serial_num}`,
    status,
    fileName: fileNameOf("PCR", pcr.serial_num),
    sections: [
      {
        id: "request",
        title: "The request",
        note: null,
        blocks: [
          fields([
            ["Status", status],
            ["Originator", personWithPosition(pcr.originator)],
            ["Raised", utcText(pcr.createdAt)],
            ["Finished", pcr.finishedAt ? utcText(pcr.finishedAt) : "—"],
            ["Copy of", pcr.cloned ? `PCR ${pcr.previous_serial_num ?? "—"}` : "—"],
            ["Safety-critical", pcr.form["safety-critical"]],
            ["New suggestion", pcr.form["new-suggestion"]],
            ["Procedure change", pcr.form["procedure-change"]],
            ["Manual / procedure", plain(pcr.form["manual-procedure"])],
            ["Suggestion details", plain(pcr.form["suggestion-details"])],
            ["Reason for change", plain(pcr.form["reason-for-change"])],
          ]),
        ],
      },
    ],
    signatures: recordSignatures(source),
    history: recordHistory(source),
    attachments,
    generatedAt: now.toISOString(),
  };
}

/**
 * A record's external references as printed (issue 42, docs/decisions/057-record-links-and-references.md):
 * "References", each type and number with its address written out (paper and PDF cannot follow a link).
 */
export function referencesPrintSection(
  references: Pick<RecordReference, "typeName" | "ref" | "url" | "addedBy" | "addedAt">[],
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
