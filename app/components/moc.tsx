import type { TemporaryState } from "#db/schema";
import { TEMPORARY_STATE_LABELS } from "~/models/moc/moc-document";
import { mocStatusLabel } from "~/models/moc/moc-status";

const STATUS_BADGE: Record<string, string> = {
  a: "badge",
  b: "badge-info",
  c: "badge-info",
  d: "badge-warning",
  e: "badge-info",
  f: "badge-warning",
  decline: "badge-danger",
};

/**
 * A MOC's status as a readable, coloured label: never a bare letter. `stage` names what it waits
 * for when the status alone would mislead (a deviation decision, though the status is back at B;
 * "Returned by HSEQ"; "Expired, not restored" on a completed temporary change).
 */
export function StatusBadge({
  status,
  completed,
  stage,
}: {
  status: string;
  completed: boolean;
  stage?: string | null;
}) {
  // A completed MOC still waiting on something is a temporary change expired, not restored: red,
  // never a green "Completed" (docs/decisions/033-closure-gates.md).
  const tone = stage
    ? completed
      ? "badge-danger"
      : "badge-warning"
    : completed
      ? "badge-success"
      : (STATUS_BADGE[status] ?? "badge");
  return <span className={`badge ${tone}`}>{stage || mocStatusLabel(status, completed)}</span>;
}

const TEMPORARY_BADGE: Record<TemporaryState, string> = {
  planned: "badge-info",
  "in-effect": "badge-warning",
  expired: "badge-danger",
  "restoration-reported": "badge-info",
  "extension-requested": "badge-warning",
  restored: "badge-success",
  "made-permanent": "badge-success",
};

/** A temporary change's state today, with its end date; red once expired, not restored. */
export function TemporaryBadge({ state, until }: { state: TemporaryState; until: string | null }) {
  const ends =
    until && ["planned", "in-effect", "extension-requested"].includes(state) ? ` until ${formatDate(until)}` : "";
  const ended = until && state === "expired" ? ` (end date ${formatDate(until)})` : "";
  return (
    <span className={`badge ${TEMPORARY_BADGE[state]}`}>
      {TEMPORARY_STATE_LABELS[state]}
      {ends}
      {ended}
    </span>
  );
}

const STEPS = [
  { status: "a", part: "A", label: "Originator" },
  { status: "b", part: "B", label: "Implementer" },
  { status: "c", part: "C", label: "HSEQ review" },
  { status: "d", part: "D", label: "Approval" },
  { status: "e", part: "E", label: "Implementation" },
  { status: "f", part: "F", label: "Verification" },
] as const;

/**
 * The a-f pipeline with the current step marked and its owner named. A declined MOC shows where
 * it stopped.
 */
export function StatusStepper({
  status,
  completed,
  owner,
  declinedAt,
  part,
}: {
  status: string;
  completed: boolean;
  owner: string | null;
  declinedAt?: string | null;
  /** The part the MOC is at when not its status's (a deviation decision belongs to E). */
  part?: string;
}) {
  const stopAt = status === "decline" ? (declinedAt ?? "b") : (part ?? status);
  const currentIndex = STEPS.findIndex((s) => s.status === stopAt);
  return (
    <ol className="stepper" aria-label="Workflow steps">
      {STEPS.map((step, index) => {
        const state = completed
          ? "done"
          : index < currentIndex
            ? "done"
            : index === currentIndex
              ? status === "decline"
                ? "declined"
                : "current"
              : "todo";
        return (
          <li
            key={step.status}
            className={`step step-${state}`}
            aria-current={state === "current" ? "step" : undefined}
          >
            <span className="step-part" aria-hidden="true">
              {state === "done" ? "✓" : state === "declined" ? "✕" : step.part}
            </span>
            <span className="step-label">
              {step.label}
              <span className="visually-hidden">
                {state === "done"
                  ? " (done)"
                  : state === "current"
                    ? " (current step)"
                    : state === "declined"
                      ? " (declined here)"
                      : ""}
              </span>
              {state === "current" && owner ? <span className="step-owner">{owner}</span> : null}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

/** "3 days", "5 hours": how long something has waited. */
export function waitedFor(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((now - new Date(iso).getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

// One formatter each, made once: toLocaleString with options builds a new Intl.DateTimeFormat on
// every call, which made dates a tenth of the dashboard's server time.
const DATE_FORMAT = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});
const DATE_TIME_FORMAT = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

export function formatDate(value: string | null | undefined): string {
  if (!value) return "—";
  return DATE_FORMAT.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value));
}

export function formatDateTime(value: string): string {
  return DATE_TIME_FORMAT.format(new Date(value));
}

/** Defined with the other labels (app/models/shared/labels.ts); re-exported for the pages that import it here. */
export { departmentLabel } from "~/models/shared/labels";
