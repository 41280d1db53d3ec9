/**
 * What a decision is taken on (docs/decisions/035-decision-context-and-one-record-description.md): the one loader helper of every decision form
 * (Part B, C, D, the deviation/extension decision, Part F, the temporary-change confirmation and
 * extension decision; app/web/moc-step-page.server.ts), laid out above the questions by
 * app/components/decision-context.tsx. The change itself (Part A), the risk assessment, the impact
 * assessment and the plans with their state come from the record's one description
 * (app/models/moc/moc-parts.server.ts); then the trail's last decision and, on a resubmission after a
 * return, the return reason and a before/after of each field that changed (the earlier submission
 * is kept in moc_form_revisions by `saveForm`).
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import { mocFormRevisions } from "#db/schema";
import type { MocFormKind } from "#db/schema/enums";
import type { MocDocument } from "~/models/moc/moc-document";
import { describeMocParts, fieldOf, PART_FIELDS, type MocTable, type PartField } from "~/models/moc/moc-parts.server";
import type { MocStep } from "~/models/moc/moc-steps.server";
import { getDb } from "~/utils/db.server";

/** The steps that decide on what others wrote: their forms show the decision context. */
export const DECISION_STEPS: readonly MocStep[] = [
  "implementer",
  "hseq",
  "approver",
  "deviation-extension",
  "verifier",
  "temporary-confirm",
  "temporary-extension-decision",
];

export type DecisionChange = { part: string; label: string; before: string; after: string };

export type DecisionContextData = {
  /** The absent person a delegate acts for, by name ("acting for B"); null when acting in person. */
  actingFor: string | null;
  /** Part A: what the change is. */
  change: { fields: PartField[]; submittedAt: string | null; by: string | null };
  riskAssessment: string | null;
  impact: MocTable;
  actionPlan: MocTable;
  manualsPlan: MocTable;
  lastDecision: { at: string; who: string; action: string; meaning: string; comment: string | null } | null;
  /** After a return: its reason and what the resubmission changed; null when nothing was returned. */
  resubmission: {
    returnedAt: string;
    returnedBy: string;
    action: string;
    reason: string | null;
    changes: DecisionChange[];
    /**
     * Everything else the trail records since the return, oldest first (issue 38 item 5): files
     * attached, the impact assessment and plans saved, items marked, each with its note.
     */
    since: { at: string; who: string; action: string; comment: string | null }[];
  } | null;
};

/** Trail actions that send work back for another submission (a return, a rejection). */
const RETURN_ACTION = /^(Returned |Rejected the |Did not confirm)/;

/** The forms a decision is taken on, whose earlier submissions are compared. */
const COMPARED: { kind: MocFormKind; key: keyof typeof PART_FIELDS; title: string }[] = [
  { kind: "originator", key: "a", title: "Part A" },
  { kind: "implementer", key: "b", title: "Part B" },
  { kind: "implementation", key: "e", title: "Part E" },
];

const formOf = (doc: MocDocument, kind: MocFormKind) =>
  ({
    originator: doc.originator_form,
    implementer: doc.implementer_form,
    hseq: doc.hseq_form,
    approver: doc.approver_form,
    implementation: doc.implementation,
    verifier: doc.verifier_form,
  })[kind] as (Record<string, unknown> & { submittedAt: string | null }) | null;

/**
 * The context of `step`'s form for the MOC `doc`, or null when the step decides nothing (Part A,
 * the implementation report, the temporary-change reports). One query (the earlier submissions),
 * only after a return.
 */
export async function decisionContext(
  doc: MocDocument,
  step: MocStep,
  actingFor: string | null,
): Promise<DecisionContextData | null> {
  if (!DECISION_STEPS.includes(step)) return null;
  const described = describeMocParts(doc);
  const partA = described.parts.find((p) => p.id === "part-a");
  const [impact, actionPlan, manualsPlan] = described.tables as [MocTable, MocTable, MocTable];

  const lastSignature = doc.signatureManifestations.at(-1) ?? null;
  // The decision's own entry: its signer's, written in the same transaction (the nearest in time,
  // within two seconds), not an edit the signer made just after (a plan saved after submitting).
  const gap = (log: { at: string }) => Math.abs(Date.parse(log.at) - Date.parse(lastSignature!.signedAt));
  const lastLog = lastSignature
    ? doc.logs
        .filter((log) => log.userId?._id === lastSignature.signerId && gap(log) < 2000)
        .reduce<(typeof doc.logs)[number] | undefined>(
          (best, log) => (!best || gap(log) < gap(best) ? log : best),
          undefined,
        )
    : undefined;
  const lastDecision = lastSignature
    ? {
        at: lastSignature.signedAt,
        who: `${lastSignature.printedName}${lastSignature.onBehalfOf ? ` on behalf of ${lastSignature.onBehalfOf.name}` : ""}`,
        action: lastLog?.action ?? lastSignature.role,
        meaning: lastSignature.meaning,
        comment: lastLog?.comment ?? null,
      }
    : null;

  const lastReturn = [...doc.logs].reverse().find((log) => RETURN_ACTION.test(log.action)) ?? null;
  let resubmission: DecisionContextData["resubmission"] = null;
  const resubmittedSinceReturn =
    lastReturn && COMPARED.some(({ kind }) => (formOf(doc, kind)?.submittedAt ?? "") > lastReturn.at);
  // Only the decision that follows the return reads it: once someone else has decided since the
  // resubmission (an HSEQ review before the approval), the return is history, not news.
  const latest = COMPARED.map(({ kind }) => formOf(doc, kind))
    .filter((form) => form?.submittedAt)
    .reduce<ReturnType<typeof formOf>>((a, b) => (!a || b!.submittedAt! > a.submittedAt! ? b : a), null);
  const resubmittedAt = latest?.submittedAt ?? "";
  const resubmitter = (latest?.submittedBy as { _id?: string } | undefined)?._id;
  const decidedSince = doc.signatureManifestations.some(
    (s) => s.signedAt > resubmittedAt && s.signerId !== resubmitter,
  );
  if (lastReturn && resubmittedSinceReturn && !decidedSince) {
    // The forms submitted again since the return, each against its submission before.
    const resubmitted = COMPARED.filter(({ kind }) => {
      const at = formOf(doc, kind)?.submittedAt;
      return at && at > lastReturn.at;
    });
    const revisions = resubmitted.length
      ? await getDb()
          .select({ kind: mocFormRevisions.kind, data: mocFormRevisions.data })
          .from(mocFormRevisions)
          .where(
            and(
              eq(mocFormRevisions.mocId, doc._id),
              inArray(
                mocFormRevisions.kind,
                resubmitted.map((c) => c.kind),
              ),
            ),
          )
          .orderBy(desc(mocFormRevisions.replacedAt))
      : [];
    const changes: DecisionChange[] = [];
    for (const { kind, key, title } of resubmitted) {
      const before = revisions.find((r) => r.kind === kind)?.data;
      if (!before) continue;
      const after = formOf(doc, kind);
      for (const row of PART_FIELDS[key]) {
        const was = fieldOf(before, row).text;
        const now = fieldOf(after, row).text;
        if (was !== now) changes.push({ part: title, label: row[1], before: was, after: now });
      }
    }
    resubmission = {
      returnedAt: lastReturn.at,
      returnedBy: lastReturn.userId?.name ?? "—",
      action: lastReturn.action,
      reason: lastReturn.comment,
      changes,
      since: doc.logs
        .filter((log) => log.at > lastReturn.at && log !== lastReturn)
        .map((log) => ({ at: log.at, who: log.userId?.name ?? "—", action: log.action, comment: log.comment })),
    };
  }

  return {
    actingFor,
    change: { fields: partA?.fields ?? [], submittedAt: partA?.when ?? null, by: partA?.who ?? null },
    riskAssessment: doc.risk_assessment,
    impact,
    actionPlan,
    manualsPlan,
    lastDecision,
    resubmission,
  };
}
