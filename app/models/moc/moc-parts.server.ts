/**
 * The one description of a MOC's parts (docs/decisions/035-decision-context-and-one-record-description.md): each part's title, its fields with their
 * labels and answers as text, who submitted it and when, and the history that belongs beneath it
 * (Part C's returns); then the deviation and extension decisions, the impact assessment and the
 * plans. The record page (app/components/moc-parts.tsx), the print view and the PDF
 * (record-print.server.ts) all lay out this description and nothing else for these parts, so they
 * cannot drift; tests/integration/moc-parts.test.ts walks every field of it through all three.
 *
 * Answers are plain text (dates as YYYY-MM-DD, times as "YYYY-MM-DD HH:MM UTC", people by name);
 * a rich-text answer also carries its sanitised HTML for the page.
 */
import { richTextToPlain, sanitizeRichText } from "~/utils/sanitize.server";
import { departmentLabel } from "../shared/labels";
import { planItemState, planProgress, trainingState, type PlanProgress } from "./moc-closure";
import { completionReportDue, type MocDocument, type UserJson } from "./moc-document";
import { namesOf, NOT_RECORDED, scopeLabel } from "./moc-names";
import { utcText } from "../shared/utc-text";
import { riskLabel } from "../risk/risk";

export type PartField = { key: string; label: string; text: string; html?: string };
export type PartHistoryEntry = { at: string; who: string; what: string; comment: string | null };
export type MocPart = {
  /** "part-a" ... "part-f", "deviations". */
  id: string;
  /** The status the part belongs to (the page folds the parts before the one in hand). */
  status: "a" | "b" | "c" | "d" | "e" | "f";
  title: string;
  state: "empty" | "draft" | "submitted";
  /** Who submitted it last, by name; null when not known (a draft, or a form kept before this was). */
  who: string | null;
  /** When it was submitted (UTC ISO). */
  when: string | null;
  fields: PartField[];
  /** What happened before the final answers (Part C's returns to the implementer), oldest first. */
  history: { title: string; entries: PartHistoryEntry[] } | null;
};
export type MocTable = {
  id: string;
  title: string;
  columns: string[];
  rows: string[][];
  empty: string;
  /** A plan's items done, cancelled and open (plans only). */
  progress?: PlanProgress;
};
export type MocPartsDescription = { parts: MocPart[]; tables: MocTable[] };

/** "Submitted 2026-03-04 09:15 UTC by Ann Lee", "Draft", "Not filled in yet." */
export const partNote = (part: Pick<MocPart, "state" | "who" | "when">) =>
  part.state === "empty"
    ? "Not filled in yet."
    : part.state === "draft"
      ? "Draft"
      : `Submitted ${utcText(part.when)}${part.who ? ` by ${part.who}` : ""}`;

/** An answer as text: yes/no as Yes/No, lists of departments by name, a person by name. */
export function answerText(value: unknown): string {
  if (value === undefined || value === null || value === "") return "—";
  if (value === true || value === "yes") return "Yes";
  if (value === false || value === "no") return "No";
  if (Array.isArray(value)) return value.length ? value.map((v) => departmentLabel(String(v))).join(", ") : "None";
  if (typeof value === "object" && "name" in value) return String((value as { name: unknown }).name);
  if (value === "permanent") return "Permanent";
  if (value === "temporary") return "Temporary";
  return String(value);
}

type FormDoc = Record<string, unknown> & { submittedAt?: string | null; submittedBy?: { name: string } | null };
const valueOf = (form: FormDoc | null | undefined, key: string): unknown => {
  const entry = form?.[key];
  return entry && typeof entry === "object" && "value" in entry ? (entry as { value: unknown }).value : undefined;
};
const plainOf = (html: unknown) => (typeof html === "string" && html.trim() ? richTextToPlain(html) || "—" : "—");
const richField = (key: string, label: string, html: unknown): PartField => ({
  key,
  label,
  text: plainOf(html),
  html: typeof html === "string" && html.trim() ? sanitizeRichText(html) : "",
});

type Row = [key: string, label: string, kind?: "rich" | "text" | "department" | "recorded" | "scope"];

/** The fields of each form, in order: the labels every medium prints. */
export const PART_FIELDS = {
  a: [
    // Absent on a MOC raised before Part A asked them: "Not recorded" (docs/decisions/036-vessels-and-crew-access.md).
    ["title", "Title", "recorded"],
    ["vessel", "Vessel or scope", "scope"],
    ["department-of-change", "Department of change", "department"],
    ["description-of-change", "Description of change", "rich"],
    ["reason-for-change", "Reason for change", "text"],
    ["affected-departments", "Affected departments"],
    ["departments-to-inform", "Departments to inform"],
    ["change-type", "Permanent or temporary"],
    ["temporary-until", "Temporary until"],
    ["hazards-seen", "Hazards seen", "text"],
    ["target-date", "Target date (proposed)"],
  ],
  b: [
    ["details-assessed", "Details assessed"],
    ["necessary-justified", "Change necessary and justified"],
    ["approver-name", "Approver"],
    ["hseq-name", "HSEQ user"],
    ["target-date", "Target date"],
    ["decline-reason", "Decline reason", "text"],
  ],
  c: [
    ["hseq-change-adequately", "Change adequately described"],
    ["hseq-justification-satisfactory", "Justification satisfactory"],
    ["hseq-risk-assessment-covered", "Risk assessment covers the change"],
    ["decline-reason", "Reason for return", "text"],
  ],
  d: [
    ["approver-changes-reviewed", "Changes reviewed"],
    ["approver-moc-approved", "MOC approved"],
    ["decline-reason", "Decline reason", "text"],
  ],
  e: [
    ["deviation-during-implementation", "Deviation during implementation"],
    ["moc-require-extension", "Extension required"],
    ["moc-circulated", "MOC circulated"],
    ["implementation-as-planned", "Implemented as planned"],
    ["completion-date", "Completion date"],
    ["extension-date", "Requested target date"],
    ["extension-reason", "Extension reason", "text"],
    ["deviation-details", "Deviation details", "rich"],
  ],
  f: [
    ["action-plan-correct", "Action plan correct"],
    ["manuals-changed", "Manuals and drawings changed"],
    ["trainings-complete", "Trainings complete"],
    ["feedback-complete", "Feedback complete"],
    ["moc-effective", "MOC effective"],
    ["close-moc", "Close the MOC"],
  ],
} satisfies Record<string, Row[]>;

/** The field's answer as text, as every medium prints it. */
export function fieldOf(form: FormDoc | null | undefined, [key, label, kind]: Row): PartField {
  const value = valueOf(form, key);
  if (kind === "rich") return richField(key, label, value);
  if (kind === "text")
    return { key, label, text: value === undefined || value === null || value === "" ? "—" : String(value) };
  if (kind === "department")
    return { key, label, text: typeof value === "string" && value ? departmentLabel(value) : "—" };
  if (kind === "recorded") return { key, label, text: typeof value === "string" && value ? value : NOT_RECORDED };
  if (kind === "scope") return { key, label, text: scopeLabel(value) };
  return { key, label, text: answerText(value) };
}

/** The action of an HSEQ return in the trail (moc-steps.server.ts, the `hseq` step). */
export const HSEQ_RETURN_ACTION = "Returned to the implementer by HSEQ";

const whoOf = (log: { userId: Pick<UserJson, "name"> | null; onBehalfOf?: Pick<UserJson, "name"> | null }) =>
  log.userId ? `${log.userId.name}${log.onBehalfOf ? ` on behalf of ${log.onBehalfOf.name}` : ""}` : "—";

const decisionText = (item: { resolved: boolean; approved: "yes" | "no" | null } | null | undefined) =>
  !item ? "—" : item.resolved ? (item.approved === "yes" ? "Approved" : "Rejected") : "Waiting for a decision";

/**
 * The action plan's trainings (docs/decisions/056-training.md), when it has any: what, who must
 * attend, by when, and each person's attendance with who recorded it (their latest record).
 */
function trainingsTable(doc: MocDocument): MocTable[] {
  const items = (doc.action?.items ?? []).filter((item) => item.training);
  if (!items.length) return [];
  const attendance = (item: (typeof items)[number]) => {
    const latest = new Map(item.training!.attendance.map((r) => [r.user, r]));
    const people = trainingState(item.training!).attendees.map((a) => {
      const r = latest.get(a._id);
      return a.attendedOn && r
        ? `${a.name}: attended ${a.attendedOn} (recorded by ${r.byName} ${utcText(r.at)})`
        : `${a.name}: not attended yet`;
    });
    return [...(item.cancelled ? [planItemState(item)] : []), ...people].join("; ");
  };
  return [
    {
      id: "trainings",
      title: "Trainings",
      columns: ["Training", "Must attend", "By", "Attendance"],
      rows: items.map((item) => [
        item.description,
        item.training!.attendees.map((a) => a.name).join(", "),
        item.due ?? "—",
        attendance(item),
      ]),
      empty: "No trainings.",
    },
  ];
}

/** The description of a MOC's parts, plans and decisions (see the module comment). */
/** A likelihood and severity pair as the record shows it: "4 × 3 = 12", or "—". */
const pairText = (l: number | undefined, sev: number | undefined) => (l && sev ? `${l} × ${sev} = ${l * sev}` : "—");

/**
 * The impact assessment; once any item is ranked (docs/decisions/037-risk-ranking-and-approvals.md)
 * with its ranks before and after the controls, and the MOC's risk in the title.
 */
function impactTable(doc: MocDocument): MocTable {
  const items = doc.impact_assessment ?? [];
  const hazards = (i: (typeof items)[number]) => i.hazards.join("; ") || "No hazards listed";
  const ranked = items.some((i) => i.likelihood || i.residualLikelihood || i.controls);
  const declared = doc.no_significant_hazard;
  if (!ranked) {
    return {
      id: "impact",
      title: declared && !items.length ? `Impact assessment (risk: ${riskLabel(doc.risk_level)})` : "Impact assessment",
      columns: ["Category", "Hazards"],
      rows: items.map((i) => [i.category, hazards(i)]),
      // The implementer's declaration stands in for the items (issue 38's risk gate), here and in print.
      empty: declared
        ? `No significant hazard, declared by ${declared.byName} on ${declared.at.slice(0, 10)}: ${declared.reason}`
        : "No impact assessment yet.",
    };
  }
  return {
    id: "impact",
    title: `Impact assessment (risk: ${riskLabel(doc.risk_level)})`,
    columns: ["Category", "Hazards", "Likelihood × severity", "Controls", "Residual likelihood × severity"],
    rows: items.map((i) => [
      i.category,
      hazards(i),
      pairText(i.likelihood, i.severity),
      i.controls || "—",
      pairText(i.residualLikelihood, i.residualSeverity),
    ]),
    empty: "No impact assessment yet.",
  };
}

export function describeMocParts(doc: MocDocument): MocPartsDescription {
  const nameOf = namesOf(doc);
  const forms: Record<MocPart["status"], FormDoc | null> = {
    a: doc.originator_form as FormDoc | null,
    b: doc.implementer_form as FormDoc | null,
    c: doc.hseq_form as FormDoc | null,
    d: doc.approver_form as FormDoc | null,
    e: doc.implementation as FormDoc | null,
    f: doc.verifier_form as FormDoc | null,
  };
  const titles: Record<MocPart["status"], string> = {
    a: "Part A — Originator",
    b: "Part B — Implementer assessment",
    c: "Part C — HSEQ review",
    d: "Part D — Approval",
    e: "Part E — Implementation",
    f: "Part F — Verification",
  };
  const part = (status: MocPart["status"]): MocPart => {
    const form = forms[status];
    let rows: Row[] = PART_FIELDS[status];
    // Part C: the final answers; an earlier return's reason belongs to the history beneath them.
    const cReturned = status === "c" && PART_FIELDS.c.slice(0, 3).some(([key]) => valueOf(form, key) === "no");
    if (status === "c" && !cReturned) rows = rows.filter(([key]) => key !== "decline-reason");
    const returns =
      status === "c"
        ? doc.logs
            .filter((log) => log.action === HSEQ_RETURN_ACTION)
            .map((log) => ({ at: log.at, who: whoOf(log), what: log.action, comment: log.comment }))
        : [];
    return {
      id: `part-${status}`,
      status,
      title: titles[status],
      state: !form ? "empty" : form.submittedAt ? "submitted" : "draft",
      who: form?.submittedBy?.name ?? null,
      when: form?.submittedAt ?? null,
      fields: form ? rows.map((row) => fieldOf(form, row)) : [],
      history: returns.length ? { title: "Returned to the implementer before", entries: returns } : null,
    };
  };
  const parts: MocPart[] = (["a", "b", "c", "d", "e"] as const).map(part);
  const tracking = doc.extentionsAndDeviations;
  if (tracking && (tracking.deviation || tracking.extension)) {
    const fields: PartField[] = [];
    if (tracking.deviation) {
      const d = tracking.deviation;
      fields.push(
        richField("deviation", "Deviation", d.details),
        { key: "deviation-decision", label: "Deviation decision", text: decisionText(d) },
        { key: "deviation-comment", label: "Deviation decision comment", text: d.comment || "—" },
        { key: "deviation-by", label: "Deviation decided by", text: d.resolved ? nameOf(d.resolvedBy) : "—" },
        { key: "deviation-at", label: "Deviation decided", text: utcText(d.resolvedAt) },
      );
    }
    if (tracking.extension) {
      const x = tracking.extension;
      fields.push(
        { key: "extension-to", label: "Extension to", text: x.new_date || "—" },
        { key: "extension-before", label: "Target date before", text: x.previous_date || "—" },
        { key: "extension-reason", label: "Extension reason", text: x.reason || "—" },
        { key: "extension-decision", label: "Extension decision", text: decisionText(x) },
        { key: "extension-comment", label: "Extension decision comment", text: x.comment || "—" },
        { key: "extension-by", label: "Extension decided by", text: x.resolved ? nameOf(x.resolvedBy) : "—" },
        { key: "extension-at", label: "Extension decided", text: utcText(x.resolvedAt) },
      );
    }
    // The completion reported after the decisions (issue 38), read with them on the page and in print.
    const c = tracking.completion;
    fields.push(
      {
        key: "completion-date",
        label: "Completion date",
        text: c?.date || (completionReportDue(tracking) ? "Not reported yet" : "—"),
      },
      { key: "completion-note", label: "How it was finished", text: c?.note || "—" },
      { key: "completion-by", label: "Completion reported by", text: c ? `${c.byName}, ${utcText(c.at)}` : "—" },
    );
    parts.push({
      id: "deviations",
      status: "e",
      title: "Deviation and extension history",
      state: "submitted",
      who: null,
      when: tracking.requestedAt ?? null,
      fields,
      history: null,
    });
  }
  parts.push(part("f"));
  const planRows = <T extends { owner: string | null; due: string | null } & Parameters<typeof planItemState>[0]>(
    items: T[],
    lead: (item: T) => string[],
  ) => items.map((item) => [...lead(item), nameOf(item.owner), item.due ?? "—", planItemState(item)]);
  const tables: MocTable[] = [
    impactTable(doc),
    {
      id: "action-plan",
      title: "Action plan",
      columns: ["Action", "Owner", "Due", "Done"],
      rows: planRows(doc.action?.items ?? [], (i) => [i.description]),
      empty: "No actions yet.",
      progress: planProgress(doc.action?.items ?? []),
    },
    {
      id: "manuals-plan",
      title: "Manuals and drawings plan",
      columns: ["Document", "Change", "Owner", "Due", "Done"],
      rows: planRows(doc.manual_plan?.items ?? [], (i) => [i.document, i.change]),
      empty: "No manuals or drawings to change yet.",
      progress: planProgress(doc.manual_plan?.items ?? []),
    },
    ...trainingsTable(doc),
  ];
  return { parts, tables };
}
