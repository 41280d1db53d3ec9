/**
 * What is decided, above every decision form's questions (docs/decisions/035-decision-context-and-one-record-description.md; its data comes from
 * app/web/decision-context.server.ts): on whose behalf a delegate acts, the change itself (Part A,
 * always open), the risk assessment, the impact assessment and the plans with their state (folded
 * on a phone), the trail's last decision and, after a return, its reason and what changed since.
 * Plain HTML: works without JavaScript.
 */
import { useLoaderData } from "@remix-run/react";
import type { MocTable } from "~/models/moc/moc-parts.server";
import { utcText } from "~/models/shared/utc-text";
import { progressWords } from "~/models/moc/moc-closure";
import type { DecisionContextData } from "~/web/decision-context.server";
import { PartFields } from "./moc-parts";
import { DataTable } from "./data-table";

function FoldedTable({ table, open }: { table: MocTable; open?: boolean }) {
  return (
    <details className="decision-context-fold" open={open}>
      <summary>
        {table.title}{" "}
        <span className="muted">
          ({table.progress ? progressWords(table.progress) : table.rows.length === 0 ? "none" : table.rows.length})
        </span>
      </summary>
      {table.rows.length === 0 ? (
        <p className="muted">{table.empty}</p>
      ) : (
        <div className="table-wrap">
          <DataTable columns={table.columns} rows={table.rows} />
        </div>
      )}
    </details>
  );
}

export function DecisionContext({ context }: { context: DecisionContextData }) {
  const { change, resubmission, lastDecision } = context;
  return (
    <section className="card decision-context" aria-labelledby="decision-context-title" data-decision-context>
      {context.actingFor ? (
        <p className="callout callout-warning" data-acting-for>
          You are <strong>acting for {context.actingFor}</strong> (a delegation): you decide and sign in your own name,
          on their behalf.
        </p>
      ) : null}
      <h2 id="decision-context-title">What you are deciding on</h2>
      {resubmission ? (
        <div className="callout callout-warning" data-resubmission>
          <p>
            <strong>Submitted again after a return.</strong> {resubmission.action} by {resubmission.returnedBy},{" "}
            {utcText(resubmission.returnedAt)}
            {resubmission.reason ? (
              <>
                . Reason: <span className="plain-text">“{resubmission.reason}”</span>
              </>
            ) : null}
          </p>
          {resubmission.changes.length ? (
            <>
              <p>What changed since:</p>
              <dl className="answers" data-changes>
                {resubmission.changes.map((c, i) => (
                  <div key={i} style={{ display: "contents" }}>
                    <dt>
                      {c.part}: {c.label}
                    </dt>
                    <dd className="plain-text">
                      <span className="muted">Before:</span> <del>{c.before}</del>
                      <br />
                      <span className="muted">After:</span> <ins>{c.after}</ins>
                    </dd>
                  </div>
                ))}
              </dl>
            </>
          ) : (
            <p>Nothing in the forms changed since the return.</p>
          )}
          {resubmission.since.length ? (
            <>
              <p>Also since the return:</p>
              <ul data-since-return>
                {resubmission.since.map((entry, i) => (
                  <li key={i}>
                    {utcText(entry.at)}, {entry.who}: {entry.action}
                    {entry.comment ? (
                      <>
                        {" "}
                        — <span className="plain-text">“{entry.comment}”</span>
                      </>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
      <h3>
        The change (Part A)
        {change.submittedAt ? (
          <span className="muted" style={{ fontSize: "0.85rem", fontWeight: 400 }}>
            {" "}
            Submitted {utcText(change.submittedAt)}
            {change.by ? ` by ${change.by}` : ""}
          </span>
        ) : null}
      </h3>
      {change.fields.length ? <PartFields fields={change.fields} /> : <p className="muted">Part A is not filled in.</p>}
      <h3>Risk assessment</h3>
      {context.riskAssessment ? (
        <p>
          <a href={context.riskAssessment} rel="noopener noreferrer" target="_blank">
            Open the risk assessment
          </a>
        </p>
      ) : (
        <p className="muted">No risk assessment attached.</p>
      )}
      <FoldedTable table={context.impact} />
      <FoldedTable table={context.actionPlan} />
      <FoldedTable table={context.manualsPlan} />
      <h3>Last decision</h3>
      {lastDecision ? (
        <p data-last-decision>
          <strong>{lastDecision.action}</strong> — {lastDecision.who}, {utcText(lastDecision.at)}
          {lastDecision.comment ? (
            <>
              : <span className="plain-text">“{lastDecision.comment}”</span>
            </>
          ) : null}
        </p>
      ) : (
        <p className="muted">No decision yet.</p>
      )}
    </section>
  );
}

/** The decision context of the step page in hand (its loader's `decision`), when it has one. */
export function StepDecisionContext() {
  const data = useLoaderData() as { decision?: DecisionContextData | null } | undefined;
  return data?.decision ? <DecisionContext context={data.decision} /> : null;
}
