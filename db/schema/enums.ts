// Plain values shared by the schema, the server and the browser bundle (no drizzle imports here).
export const ROLES = ["admin", "user"] as const;
export const DEPARTMENTS = ["engineering", "operations", "fleet", "hseq"] as const;
export const ACCESS_LEVELS = ["full", "standard"] as const;
/** The PCR signing chain's positions (docs/decisions/002-differences-from-spec.md). */
export const POSITIONS = [
  "VP Fleet Management",
  "HSEQ Coordinator",
  "Group HSEQ Manager",
  "Director HSEQ",
  "President",
] as const;

export type Role = (typeof ROLES)[number];
export type Department = (typeof DEPARTMENTS)[number];
export type Access = (typeof ACCESS_LEVELS)[number];
export type Position = (typeof POSITIONS)[number];

/** How a person gets target-date reminders: one email per MOC, or one daily digest. */
export const REMINDER_PREFERENCES = ["per_moc", "digest"] as const;
export type ReminderPreference = (typeof REMINDER_PREFERENCES)[number];

export const EMAIL_STATUSES = ["queued", "sending", "sent", "failed"] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** MOC status codes (docs/decisions/004-moc-workflow.md). */
export const MOC_STATUSES = ["a", "b", "c", "d", "e", "f", "decline"] as const;
export type MocStatus = (typeof MOC_STATUSES)[number];

/** The six form documents of a MOC, by the step that writes them. */
export const MOC_FORM_KINDS = ["originator", "implementer", "hseq", "approver", "implementation", "verifier"] as const;
export type MocFormKind = (typeof MOC_FORM_KINDS)[number];

/** The PCR signing chain, in order (docs/api-contract.md, "PCR"). `Change Originator` is the PCR's originator. */
export const PCR_ROLES = [
  "Change Originator",
  "VP Fleet Management",
  "HSEQ Coordinator",
  "Group HSEQ Manager",
  "Director HSEQ",
  "President",
] as const;
export type PcrRole = (typeof PCR_ROLES)[number];
export const PCR_STATUSES = ["pending", "finished", "withdrawn"] as const;
export type PcrStatus = (typeof PCR_STATUSES)[number];

/** Reminder urgency levels (docs/decisions/008-reminders.md), most urgent first. */
export const REMINDER_URGENCIES = ["CRITICAL", "URGENT", "HIGH", "MEDIUM", "LOW"] as const;
export type ReminderUrgency = (typeof REMINDER_URGENCIES)[number];

/** Legacy (paper) record states (docs/decisions/010-legacy-archive.md). */
export const LEGACY_STATUSES = ["open", "closed"] as const;
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

/** Year-end review action states. */
export const REVIEW_ACTION_STATUSES = ["open", "in_progress", "done"] as const;
export type ReviewActionStatus = (typeof REVIEW_ACTION_STATUSES)[number];

/** Chat message length bounds (docs/decisions/007-chat.md). */
export const CHAT_MESSAGE_MAX = 5000;

/**
 * The kinds of notice a person chooses a channel for (docs/decisions/029-oidc-and-notifications.md).
 * `step_waiting` is a step of the pipeline waiting on them: never below in-app.
 */
export const NOTICE_KINDS = [
  "step_waiting",
  "moc_decision",
  "reminder",
  "action",
  "chat_mention",
  "pcr_signature",
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
/** email and in-app, in-app only, or nothing. */
export const NOTICE_CHANNELS = ["email", "digest", "in_app", "off"] as const;
export type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

/** How an effectiveness review answers (issue 42, docs/decisions/058-effectiveness-review.md). */
export const EFFECTIVENESS_RESULTS = ["effective", "partly", "not-effective"] as const;
export type EffectivenessResult = (typeof EFFECTIVENESS_RESULTS)[number];
