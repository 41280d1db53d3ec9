/**
 * A MOC as it is printed and drawn as a PDF (docs/decisions/022-records-out.md): its sections, its
 * signature blocks (its signed decisions, from the stored signature manifestations; those taken
 * before manifestations were kept reconstructed from its log, docs/decisions/021-records-people-can-trust.md)
 * and its history (its `moc_logs` trail), in the shape app/models/records-out/record-print.server.ts
 * gives every kind's record.
 */
import {
  joinedDetail,
  manifestationBlock,
  personWithPosition,
  printFields,
  printFileName,
  quotedComment,
  RECONSTRUCTED_SIGNATURE,
  type PrintAttachment,
  type PrintHistoryEntry,
  type PrintRecord,
  type PrintSection,
  type PrintBlock,
  type PrintSignature,
} from "../records-out/record-print.server";
import type { SignatureManifestation } from "../audit/audit.server";
import { riskLabel } from "../risk/risk";
import { utcText } from "../shared/utc-text";
import type { MocDocument } from "./moc-document";
import { mocName, titleOf } from "./moc-names";
import { describeMocParts, partNote } from "./moc-parts.server";
import { DEVIATION_DECISION, MOC_CLOSED_ACTION, mocStage, stateOfDocument, trailStages } from "./moc-steps.server";

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

/**
 * A MOC's signature blocks: its signed decisions, from their stored manifestations (the signer's
 * printed name and position at the time, role, UTC time, meaning); those taken before
 * manifestations were kept reconstructed from the log as before and marked `reconstructed`.
 */
export function mocPrintSignatures(doc: MocDocument): PrintSignature[] {
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

/** A MOC's history, oldest first, as its hash-chained `moc_logs` trail holds it (its document's `logs`). */
export function mocPrintHistory(doc: MocDocument): PrintHistoryEntry[] {
  return doc.logs.map((log) => ({
    at: log.at,
    who: log.userId?.name ?? "—",
    action: log.action,
    detail: joinedDetail([
      log.from && log.to && log.from !== log.to
        ? trailStages({ from: log.from, to: log.to, action: log.action }).join(" → ")
        : null,
      quotedComment(log.comment),
    ]),
  }));
}

/** A MOC as it is printed. */
export function mocPrintRecord(doc: MocDocument, attachments: PrintAttachment[], now = new Date()): PrintRecord {
  const status = mocStage(stateOfDocument(doc));
  const described = describeMocParts(doc);
  const sections: PrintSection[] = [
    {
      id: "people",
      title: "People and dates",
      note: null,
      blocks: [
        printFields([
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
    fileName: printFileName("MOC", doc.serial_num),
    sections,
    signatures: mocPrintSignatures(doc),
    history: mocPrintHistory(doc),
    attachments,
    generatedAt: now.toISOString(),
  };
}
