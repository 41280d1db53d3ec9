/**
 * The populated MOC document as the API returns it and the pages read it (its SQL is
 * `db/moc-document.ts`), typed once so no page casts it, and the one test of an outstanding
 * deviation or extension. No I/O and nothing server-only: the pages' components use it too.
 */
import type {
  ActionPlan,
  Decline,
  ExtentionsAndDeviations,
  ImpactItem,
  ManualPlan,
  NoSignificantHazard,
  TemporaryChange,
  TemporaryState,
} from "#db/schema";
import type {
  approverFormSchema,
  hseqFormSchema,
  implementationSchema,
  ImplementerForm,
  OriginatorForm,
  verifierFormSchema,
} from "./moc.schema";
import type { z } from "zod";
// A type only: nothing of the server module reaches the browser.
import type { Access, Department, Role } from "#db/schema/enums";
import type { SignatureManifestation } from "../audit/audit.server";
import type { EffectivenessReview } from "./effectiveness-closure.server";

/** A user as documents carry it (never the password hash). */
export type UserJson = {
  _id: string;
  name: string;
  email: string;
  role: Role;
  department: Department;
  access: Access;
  position: string | null;
  active: boolean;
};

/** A stored form: its fields (`{ key: { value } }`, any may be missing on a draft) and its stamps. */
type Stored<T> = {
  _id: string;
  submittedAt: string | null;
  /** Who submitted it last (a new key; null for a draft or a form submitted before it was kept). */
  submittedBy?: { _id: string; name: string } | null;
  createdAt: string;
  updatedAt: string;
} & {
  [K in keyof T]?: T[K];
};

/** A person picked on a form, as stored: the id and the name at the time. */
type PickedUser = { value: { _id: string; name: string } };

export type OriginatorFormDoc = Stored<Omit<OriginatorForm, "implementer-name"> & { "implementer-name": PickedUser }>;
export type ImplementerFormDoc = Stored<
  Omit<ImplementerForm, "approver-name" | "hseq-name"> & { "approver-name": PickedUser; "hseq-name": PickedUser }
>;

export type MocLogJson = {
  _id: string;
  userId: UserJson | null;
  /** The absent person `userId` acted for, by delegation ("A on behalf of B"). */
  onBehalfOf: UserJson | null;
  action: string;
  from: string | null;
  to: string;
  comment: string | null;
  at: string;
};

export type MocDocument = {
  _id: string;
  serial_num: string;
  status: string;
  completed: boolean;
  isDeleted: boolean;
  cloned: boolean;
  previous_moc: string | null;
  originator_form: OriginatorFormDoc | null;
  implementer_form: ImplementerFormDoc | null;
  hseq_form: Stored<z.infer<typeof hseqFormSchema>> | null;
  approver_form: Stored<z.infer<typeof approverFormSchema>> | null;
  implementation: Stored<z.infer<typeof implementationSchema>> | null;
  verifier_form: Stored<z.infer<typeof verifierFormSchema>> | null;
  originator_id: UserJson | null;
  implementer_id: UserJson | null;
  approver_id: UserJson | null;
  verifier_id: UserJson | null;
  hseq_id: UserJson | null;
  all_users: UserJson[];
  logs: MocLogJson[];
  /** Every decision's signature (app/models/audit/audit.server.ts), oldest first: a new key. */
  signatureManifestations: SignatureManifestation[];
  decline: Decline | null;
  extentionsAndDeviations: ExtentionsAndDeviations | null;
  impact_assessment: ImpactItem[];
  risk_assessment: string | null;
  /** The MOC's risk, the highest residual level of its impact items; null: not ranked (a new key, docs/decisions/037). */
  risk_level?: "low" | "medium" | "high" | "extreme" | null;
  /** The highest level HSEQ reviewed it at; approvals never follow a lower one (a new key, issue 40 item 3). */
  reviewed_risk_level?: "low" | "medium" | "high" | "extreme" | null;
  /**
   * Where the MOC stands, in words (`mocStage`: "Second approval (High risk)", "Completion report"):
   * a new key of the API's answers about one MOC, read live with the document, never stored; the
   * lists' documents leave it out (issue 38).
   */
  stage: string;
  /** The implementer's "no significant hazard" declaration, which ranks a MOC without impact items Low (a new key, issue 38). */
  no_significant_hazard?: NoSignificantHazard | null;
  action: ActionPlan;
  manual_plan: ManualPlan;
  /** The people the plans name as owners, by id and name (a new key: an owner need not be on the MOC otherwise). */
  plan_owners?: { _id: string; name: string }[];
  chat: string;
  target_date: string | null;
  /** Null for a permanent change (docs/decisions/023-temporary-changes-and-delegation.md). */
  temporary: TemporaryChange | null;
  /** Its effectiveness review (issue 42, docs/decisions/058-effectiveness-review.md); null before closure. */
  effectiveness_review: EffectivenessReview | null;
  createdAt: string;
  updatedAt: string;
};

/** The form documents of a MOC, by their key in the document. */
export type MocFormKey =
  "originator_form" | "implementer_form" | "hseq_form" | "approver_form" | "implementation" | "verifier_form";

/**
 * A requested deviation or extension still waits for its resolution: the one definition (its SQL
 * twin is `DEVIATION_OUTSTANDING` in actions.server.ts, tested against this).
 */
export const deviationOutstanding = (tracking: ExtentionsAndDeviations | null | undefined): boolean =>
  Boolean(tracking && (unresolved(tracking.deviation) || unresolved(tracking.extension)));

/**
 * After the deviation and extension decisions, the implementer still owes the completion report
 * (issue 38): every requested item decided, no report yet. The one definition; its SQL twin is
 * `COMPLETION_REPORT_DUE` in steps/shape.server.ts, tested against this.
 */
export const completionReportDue = (tracking: ExtentionsAndDeviations | null | undefined): boolean =>
  Boolean(
    tracking &&
    (tracking.deviation?.requested || tracking.extension?.requested) &&
    !deviationOutstanding(tracking) &&
    !tracking.completion,
  );

/** One requested item that waits for its resolution. */
export const unresolved = (item: { resolved: boolean } | null | undefined): boolean => Boolean(item && !item.resolved);

/**
 * What a temporary change is on `today` (a UTC date): its recorded state, except that one in effect
 * past its end date is expired. The one definition; its SQL twin is `TEMPORARY_STATE_SQL`.
 */
export const temporaryStateOn = (
  temporary: TemporaryChange | null | undefined,
  today: string,
): TemporaryState | null =>
  !temporary ? null : temporary.state === "in-effect" && temporary.until < today ? "expired" : temporary.state;

export const TEMPORARY_STATE_LABELS: Record<TemporaryState, string> = {
  planned: "Temporary (not yet in effect)",
  "in-effect": "Temporary change in effect",
  expired: "Expired, not restored",
  "restoration-reported": "Restored, waiting for HSEQ confirmation",
  "extension-requested": "Extension waiting for the approver",
  restored: "Restored (confirmed by HSEQ)",
  "made-permanent": "Made permanent",
};
