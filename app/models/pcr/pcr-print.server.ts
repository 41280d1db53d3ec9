/**
 * A PCR as it is printed and drawn as a PDF (docs/decisions/022-records-out.md): its request, its
 * signature blocks (its six chain slots, signed or not, then its affected parties, from the stored
 * signature manifestations; one given before they were kept reconstructed,
 * docs/decisions/021-records-people-can-trust.md) and its history (its `audit_entries` trail, what it
 * did before the trail began reconstructed from its timestamps), in the shape
 * app/models/records-out/record-print.server.ts gives every kind's record.
 */
import { PCR_ROLES } from "#db/schema/enums";
import type { HistoryEntry } from "../audit/audit.server";
import { fillsSlot } from "../audit/signature-roles";
import {
  drawnImage,
  joinedDetail,
  manifestationBlock,
  personWithPosition,
  printFields,
  printFileName,
  printPlain,
  quotedComment,
  RECONSTRUCTED_HISTORY,
  RECONSTRUCTED_SIGNATURE,
  type PrintAttachment,
  type PrintHistoryEntry,
  type PrintRecord,
  type PrintSignature,
} from "../records-out/record-print.server";
import { departmentLabel } from "../shared/labels";
import { utcText } from "../shared/utc-text";
import type { PcrDocument } from "./pcr.server";

const PCR_STATUS_LABEL: Record<string, string> = {
  pending: "Collecting signatures",
  finished: "Finished",
  withdrawn: "Withdrawn",
};
/**
 * A PCR's signature blocks: its six chain slots (signed or not) and then its affected parties, from
 * the stored manifestations; a signature given before they were kept reconstructed and marked.
 */
export function pcrPrintSignatures(pcr: PcrDocument): PrintSignature[] {
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
  for (const block of pcrPrintSignatures(pcr)) {
    if (block.state === "unsigned" || !block.at) continue;
    entries.push({
      at: block.at,
      who: block.name ?? "—",
      action: block.state === "signed" ? `Signed as ${block.role}` : `Commented as ${block.role}`,
      detail: joinedDetail([quotedComment(block.comment), RECONSTRUCTED_HISTORY]),
    });
  }
  if (pcr.finishedAt) entries.push({ at: pcr.finishedAt, who: "—", action: "Finished", detail: RECONSTRUCTED_HISTORY });
  return entries;
}

/**
 * A PCR's history, oldest first, as its hash-chained `audit_entries` hold it (created, edited,
 * signed, commented, parties changed, cloned, attachments, finished, deleted). What it did before
 * its trail began is reconstructed from its timestamps, marked as such.
 */
export function pcrPrintHistory(pcr: PcrDocument, trail: HistoryEntry[]): PrintHistoryEntry[] {
  const stored = trail.map((entry): PrintHistoryEntry => ({
    at: entry.at,
    who: entry.actorName ?? "—",
    action: entry.action,
    detail: joinedDetail([
      entry.from && entry.to && entry.from !== entry.to
        ? `${PCR_STATUS_LABEL[entry.from] ?? entry.from} → ${PCR_STATUS_LABEL[entry.to] ?? entry.to}`
        : null,
      quotedComment(entry.comment),
    ]),
  }));
  // The trail begins with the PCR's creation; anything dated over a second before it predates the trail.
  const trailBegan = trail.length ? Date.parse(trail[0]!.at) - 1000 : Infinity;
  const before = pcrReconstructedHistory(pcr)
    .filter((entry) => Date.parse(entry.at) < trailBegan)
    .sort((a, b) => a.at.localeCompare(b.at));
  return [...before, ...stored];
}

/** A PCR as it is printed. */
export function pcrPrintRecord(
  pcr: PcrDocument,
  trail: HistoryEntry[],
  attachments: PrintAttachment[],
  now = new Date(),
): PrintRecord {
  const status = PCR_STATUS_LABEL[pcr.status] ?? pcr.status;
  return {
    kind: "PCR",
    id: pcr._id,
    serial: pcr.serial_num,
    title: pcr.form.title ? `PCR ${pcr.serial_num} — ${pcr.form.title}` : `PCR ${pcr.serial_num}`,
    status,
    fileName: printFileName("PCR", pcr.serial_num),
    sections: [
      {
        id: "request",
        title: "The request",
        note: null,
        blocks: [
          printFields([
            ["Status", status],
            ["Originator", personWithPosition(pcr.originator)],
            ["Raised", utcText(pcr.createdAt)],
            ["Finished", pcr.finishedAt ? utcText(pcr.finishedAt) : "—"],
            ["Copy of", pcr.cloned ? `PCR ${pcr.previous_serial_num ?? "—"}` : "—"],
            ["Safety-critical", pcr.form["safety-critical"]],
            ["New suggestion", pcr.form["new-suggestion"]],
            ["Procedure change", pcr.form["procedure-change"]],
            ["Manual / procedure", printPlain(pcr.form["manual-procedure"])],
            ["Suggestion details", printPlain(pcr.form["suggestion-details"])],
            ["Reason for change", printPlain(pcr.form["reason-for-change"])],
          ]),
        ],
      },
    ],
    signatures: pcrPrintSignatures(pcr),
    history: pcrPrintHistory(pcr, trail),
    attachments,
    generatedAt: now.toISOString(),
  };
}
