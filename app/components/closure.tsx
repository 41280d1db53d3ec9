/**
 * What the verifier and the implementer see of the closure gate and of returns
 * (docs/decisions/033-closure-gates.md): the checklist of what keeps a MOC from closing, and the
 * banner saying why a MOC came back. Plain markup and links: they work without JavaScript.
 */
import { Link } from "@remix-run/react";
import type { MocDocument, MocLogJson } from "~/models/moc/moc-document";
import { closureBlockers, openTrainings, planForClosure, VERIFIER_QUESTIONS } from "~/models/moc/moc-closure";
import { formatDateTime } from "./moc";

/** The plans and Part E as the closure gate reads them, from the populated document. */

/**
 * The verifier page's checklist: each open plan item (with a link to cancel it for those who may),
 * the completion date, and the rule for the answers; with the way back to implementation.
 */
export function ClosureChecklist({
  moc,
  canCancel,
  canReturn,
}: {
  moc: MocDocument;
  canCancel: boolean;
  canReturn: boolean;
}) {
  const blockers = closureBlockers(planForClosure(moc));
  const plan = (kind: string) => (kind === "action" ? "action" : "manual_plan");
  return (
    <section
      className={`callout ${blockers.length ? "callout-warning" : ""}`}
      aria-labelledby="closure-checklist-title"
      data-testid="closure-checklist"
    >
      <h2 id="closure-checklist-title">Before closing</h2>
      {blockers.length ? (
        <>
          <p>This MOC cannot be closed until each of these is settled:</p>
          <ul>
            {blockers.map((b) => (
              <li key={`${b.kind}-${b.itemId ?? ""}`}>
                {b.message}
                {b.itemId && canCancel ? (
                  <>
                    {" "}
                    <Link to={`/mocs/${moc._id}/cancel-item?plan=${plan(b.kind)}&item=${encodeURIComponent(b.itemId)}`}>
                      Cancel it with a reason
                    </Link>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>Every plan item is done or cancelled and Part E has its completion date.</p>
      )}
      {openTrainings(moc.action).length ? (
        <>
          <p>“Are trainings complete?” cannot be answered yes while these trainings are open:</p>
          <ul data-testid="open-trainings">
            {openTrainings(moc.action).map((b) => (
              <li key={b.itemId}>
                {b.message} <Link to={`/mocs/${moc._id}/trainings`}>Trainings and attendance</Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p className="muted">
        Closing also needs “yes” to every question below: {Object.values(VERIFIER_QUESTIONS).join(" ")}
      </p>
      {canReturn ? (
        <p>
          <Link to={`/mocs/${moc._id}/verifier-return`} className="button">
            Return to implementation
          </Link>
        </p>
      ) : null}
    </section>
  );
}

/** The trail entry of the last return into `to` from `from`, if the MOC came back that way. */
export function lastReturn(moc: MocDocument, from: string, to: string): MocLogJson | null {
  return [...moc.logs].reverse().find((l) => l.from === from && l.to === to) ?? null;
}

/** Why the MOC came back: the reason, who and when (Part B after HSEQ, Part E after the verifier). */
export function ReturnedBanner({ entry, by }: { entry: MocLogJson; by: string }) {
  const who = entry.userId?.name ?? "Someone";
  const onBehalf = entry.onBehalfOf ? ` on behalf of ${entry.onBehalfOf.name}` : "";
  return (
    <div className="callout callout-warning" role="note" aria-labelledby="returned-title" data-testid="returned-banner">
      <h2 id="returned-title">
        <span className="badge badge-warning">{by}</span>
      </h2>
      <p>
        {who}
        {onBehalf} returned this MOC on {formatDateTime(entry.at)}. Reason:
      </p>
      <blockquote style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
        {entry.comment || "No reason recorded"}
      </blockquote>
    </div>
  );
}
