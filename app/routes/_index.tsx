import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { EXPIRED_NOT_RESTORED } from "~/models/moc/moc-closure";
import { mocName, titleOf } from "~/models/moc/moc-names";
import { Link, useLoaderData } from "@remix-run/react";
import { formatDate, formatDateTime, waitedFor } from "~/components/moc";
import { pendingActions } from "~/models/moc/actions.server";
import { dueEffectivenessReviews } from "~/models/moc/effectiveness.server";
import { MyActions } from "~/components/my-actions";
import { DASHBOARD_ACKNOWLEDGEMENTS, PendingAcknowledgements } from "~/components/pending-acknowledgements";
import { pendingAcknowledgements } from "~/models/circulations/circulations.server";
import { MyVessel } from "~/components/my-vessel";
import { WaitingItemLine } from "~/components/waiting-item";
import { MOC_KIND } from "~/models/kinds/moc.server";
import { PCR_KIND } from "~/models/kinds/pcr.server";
import { waitingItemOfStep } from "~/models/moc/moc-waiting.server";
import { myVessel } from "~/models/overview/my-vessel.server";
import { waitingWork } from "~/models/overview/waiting-work.server";
import { myActions } from "~/models/moc/action-tasks.server";
import { dashboard } from "~/models/moc/moc-list.server";
import { delegatedPcrSignatures, pendingPcrSignatures } from "~/models/pcr/pcr-signing.server";
import { mocStatusLabel } from "~/models/moc/moc-status";
import { MOC_STAGES, stepLink } from "~/models/moc/moc-steps.server";
import { ENDING_SOON_DAYS } from "~/models/moc/moc-status";
import { requirePageUser } from "~/web/auth.server";
import { principalsOf } from "~/models/people/delegation.server";
import { getDb } from "~/utils/db.server";

export const meta: MetaFunction = () => [{ title: "Dashboard · Change Management" }];

/** The stages the dashboard shows even when no MOC stands there: the statuses' own and "Completed". */
const ALWAYS_SHOWN = new Set([...["a", "b", "c", "d", "e", "f", "decline"].map((s) => mocStatusLabel(s)), "Completed"]);

/**
 * How many of the steps waiting on the user the dashboard shows (the longest-waiting first), and
 * as many of each other kind's waiting work.
 */
const WAITING_SHOWN = 20;
/**
 * The kinds "Waiting on me" lays out in sections of their own, read through their own loaders: the
 * MOC's steps (part, target date, the list of all of them) and the PCR's signatures, which the
 * "On behalf of" groups show too. Every other kind's waiting work comes from its registry entry
 * (`waitingWork`) and is shown as its lines (`WaitingItemLine`), so a kind added later appears with
 * no change here (docs/decisions/060-record-kinds.md).
 */
const OWN_SECTIONS = [MOC_KIND.name, PCR_KIND.name];
/** How many of the user's open plan items "My actions" shows (soonest due first) unless all are asked for. */
const MY_ACTIONS_SHOWN = 20;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const today = new Date().toISOString().slice(0, 10);
  const allActions = new URL(request.url).searchParams.get("actions") === "all";
  const [waiting, signatures, otherWork, board, principals, mine, vessel, acknowledgements, reviews] =
    await Promise.all([
      pendingActions(user, { limit: WAITING_SHOWN }),
      pendingPcrSignatures(user),
      waitingWork(user, { limit: WAITING_SHOWN, today, except: OWN_SECTIONS }),
      dashboard(user),
      principalsOf(getDb(), user._id, today),
      myActions(user, { limit: allActions ? undefined : MY_ACTIONS_SHOWN, today }),
      // "My vessel" (issue 41): one query for people on no vessel today.
      myVessel(user, new URL(request.url).searchParams.get("vessel")),
      // "To read and acknowledge" (issue 41): one query; the section shows only when something waits.
      pendingAcknowledgements(user, { pageSize: DASHBOARD_ACKNOWLEDGEMENTS }),
      // Effectiveness reviews due, the HSEQ department's turn (issue 42): no query for anyone else.
      dueEffectivenessReviews(user, today),
    ]);
  // The work of the people this user stands in for today, shown apart ("on behalf of B").
  const delegated = await Promise.all(
    principals.map(async (principal) => ({
      name: principal.name,
      signatures: await delegatedPcrSignatures(principal, user),
      actions: (await pendingActions(principal, { limit: WAITING_SHOWN, delegate: user })).actions.map((item) => ({
        ...stepLink(item.type),
        mocId: item.moc._id,
        serial: item.moc.serial_num,
        title: titleOf(item.moc.originator_form),
        targetDate: item.moc.target_date,
      })),
    })),
  );
  return {
    name: user.name,
    myVessel: vessel,
    acknowledgements,
    // To the minute, the resolution "waiting 5 min" shows: the page stays the same (and answers 304
    // to a revalidation, app/web/revalidation.server.ts) until something on it changes.
    now: Math.floor(Date.now() / 60_000) * 60_000,
    today,
    waitingTotal: waiting.total,
    reviews: reviews.reviews,
    // What the page shows of each, no more: the data travels in the page too (docs/decisions/032-pages-at-sea.md).
    waiting: waiting.actions.map((item) => {
      const { step, part } = stepLink(item.type);
      // Where the step leads and how its description is cut, as the MOC's waiting work says them.
      const line = waitingItemOfStep(item);
      return {
        step,
        part,
        mocId: item.moc._id,
        serial: item.moc.serial_num,
        title: titleOf(item.moc.originator_form),
        description: line.detail ?? "",
        targetDate: item.moc.target_date,
        waitingSince: item.waitingSince,
        stage: item.stage,
        to: line.path,
      };
    }),
    signatures,
    // The other kinds' waiting work, those with something waiting.
    otherWaiting: otherWork.filter((work) => work.total > 0),
    delegated,
    myActions: mine,
    temporary: board.temporary,
    expired: board.expired.map((r) => ({
      id: r.id,
      serialNum: r.serialNum,
      title: r.title,
      temporaryUntil: r.temporaryUntil,
    })),
    overdue: board.overdue.map((r) => ({
      id: r.id,
      serialNum: r.serialNum,
      title: r.title,
      targetDate: r.targetDate,
      temporaryState: r.temporaryState,
      temporaryUntil: r.temporaryUntil,
    })),
    activity: board.activity.map((a) => ({
      mocId: a.mocId,
      serialNum: a.serialNum,
      title: a.title,
      action: a.action,
      by: a.by,
      at: a.at,
    })),
    // Each status's stage always (a stable grid), the finer stages ("Second approval", "Completion
    // report") when a MOC stands there: every one from MOC_STAGES, the names mocStage gives.
    counts: MOC_STAGES.map((stage) => ({ stage, n: board.counts.find((c) => c.stage === stage)?.n ?? 0 })).filter(
      ({ stage, n }) => n > 0 || ALWAYS_SHOWN.has(stage),
    ),
  };
}

export default function Dashboard() {
  const {
    name,
    waiting,
    waitingTotal,
    signatures,
    counts,
    overdue,
    activity,
    now,
    today,
    temporary,
    expired,
    delegated,
    myActions: mine,
    myVessel: vessel,
    acknowledgements,
    reviews,
    otherWaiting,
  } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Good to see you, {name.split(" ")[0]}</h1>
          <p className="muted">What needs you today, and what changed on your records.</p>
        </div>
        <div className="row">
          <Link to="/mocs/new" className="button button-primary">
            New MOC
          </Link>
          <Link to="/pcrs/new" className="button">
            New PCR
          </Link>
        </div>
      </div>

      <MyVessel data={vessel} />

      <section className="card" aria-labelledby="waiting-title">
        <h2 id="waiting-title">Waiting on me</h2>
        {waiting.length === 0 && signatures.length === 0 && reviews.length === 0 && otherWaiting.length === 0 ? (
          <p className="empty">Nothing is waiting on you right now.</p>
        ) : (
          <ul className="waiting-list">
            {signatures.map((item) => (
              <li key={`${item.pcrId}-${item.role}`}>
                <div>
                  <Link to={`/pcrs/${item.pcrId}`} className="moc-link">
                    PCR {item.serialNum}: your signature as {item.role}
                  </Link>
                </div>
                <div style={{ textAlign: "right" }}>Waiting {waitedFor(item.waitingSince, now)}</div>
              </li>
            ))}
            {reviews.map((item) => (
              <li key={`${item.mocId}-effectiveness`}>
                <div>
                  <Link to={`/mocs/${item.mocId}/effectiveness`} className="moc-link">
                    {mocName(item.serial, item.title)}: effectiveness review
                  </Link>
                </div>
                <div style={{ textAlign: "right" }}>
                  <span className={item.dueOn < today ? "overdue" : "muted"}>
                    Due {formatDate(item.dueOn)}
                    {item.dueOn < today ? " (overdue)" : ""}
                  </span>
                </div>
              </li>
            ))}
            {waiting.map((item) => {
              const late = item.targetDate && item.targetDate < today;
              return (
                <li key={`${item.mocId}-${item.step}`}>
                  <div>
                    <Link to={item.to} className="moc-link">
                      {mocName(item.serial, item.title)}: {item.part}
                    </Link>
                    {item.stage ? (
                      <>
                        {" "}
                        <span
                          className={`badge ${item.stage === EXPIRED_NOT_RESTORED ? "badge-danger" : "badge-warning"}`}
                        >
                          {item.stage}
                        </span>
                      </>
                    ) : null}
                    <br />
                    <span className="muted">{item.description || "No description"}</span>
                  </div>
                  <div style={{ textAlign: "right" }}>
                    <span>Waiting {waitedFor(item.waitingSince, now)}</span>
                    <br />
                    <span className={late ? "overdue" : "muted"}>
                      Target {formatDate(item.targetDate)}
                      {late ? " (overdue)" : ""}
                    </span>
                  </div>
                </li>
              );
            })}
            {otherWaiting.flatMap((work) =>
              work.items.map((item, i) => (
                <WaitingItemLine key={`${work.kind}-${item.recordId}-${i}`} item={item} now={now} today={today} />
              )),
            )}
          </ul>
        )}
        {waitingTotal > waiting.length ? (
          <p>
            These are the {waiting.length} MOC steps that have waited longest, of {waitingTotal}.{" "}
            <Link to="/mocs?scope=waiting">All {waitingTotal} MOCs waiting on me</Link>
          </p>
        ) : null}
        {otherWaiting
          .filter((work) => work.total > work.items.length)
          .map((work) => (
            <p key={work.kind}>
              These are the first {work.items.length} of the {work.total} {work.label} items waiting on you.
            </p>
          ))}
      </section>

      <PendingAcknowledgements items={acknowledgements.items} total={acknowledgements.total} />

      <MyActions actions={mine.actions} total={mine.total} />

      {delegated.map((group, i) => (
        <section className="card" aria-labelledby={`delegated-${i}-title`} key={group.name}>
          <h2 id={`delegated-${i}-title`}>On behalf of {group.name}</h2>
          <p className="muted">You stand in for {group.name} today; what you do here is recorded as on their behalf.</p>
          {group.actions.length === 0 && group.signatures.length === 0 ? (
            <p className="empty">Nothing is waiting on {group.name} right now.</p>
          ) : (
            <ul className="waiting-list">
              {group.signatures.map((item) => (
                <li key={`${item.pcrId}-${item.role}`}>
                  <Link to={`/pcrs/${item.pcrId}`} className="moc-link">
                    PCR {item.serialNum}: signature as acting {item.role}
                  </Link>
                  <span className="muted">Waiting {waitedFor(item.waitingSince, now)}</span>
                </li>
              ))}
              {group.actions.map((item) => (
                <li key={`${item.mocId}-${item.step}`}>
                  <Link to={`/mocs/${item.mocId}/${item.path}`} className="moc-link">
                    {mocName(item.serial, item.title)}: {item.part}
                  </Link>
                  <span className={item.targetDate && item.targetDate < today ? "overdue" : "muted"}>
                    Target {formatDate(item.targetDate)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}

      <section aria-labelledby="counts-title">
        <h2 id="counts-title">MOCs by stage</h2>
        <div className="stat-grid">
          {counts.map(({ stage, n }) => (
            <Link key={stage} to={`/mocs?stage=${encodeURIComponent(stage)}`} className="stat">
              <span className="stat-number">{n}</span>
              {stage}
            </Link>
          ))}
        </div>
      </section>

      <section aria-labelledby="temporary-title">
        <h2 id="temporary-title">Temporary changes</h2>
        <div className="stat-grid">
          <Link to="/mocs?temporary=in-effect&sort=temporary" className="stat">
            <span className="stat-number">{temporary.inEffect}</span>
            In effect
          </Link>
          <Link to="/mocs?temporary=ending-soon&sort=temporary" className="stat">
            <span className="stat-number">{temporary.endingSoon}</span>
            Ending within {ENDING_SOON_DAYS} days
          </Link>
          <Link
            to="/mocs?temporary=expired&sort=temporary"
            className={`stat${temporary.expired ? " stat-danger" : ""}`}
          >
            <span className="stat-number">{temporary.expired}</span>
            {EXPIRED_NOT_RESTORED}
          </Link>
        </div>
        {expired.length > 0 ? (
          <ul className="waiting-list card">
            {expired.map((r) => (
              <li key={r.id}>
                <Link to={`/mocs/${r.id}`} className="moc-link">
                  {mocName(r.serialNum, r.title)}
                </Link>
                <span className="overdue">
                  {EXPIRED_NOT_RESTORED}: ended {formatDate(r.temporaryUntil)}
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <div className="grid">
        <section className="card" aria-labelledby="overdue-title">
          <h2 id="overdue-title">Overdue</h2>
          {overdue.length === 0 ? (
            <p className="empty">No open MOC is past its target date.</p>
          ) : (
            <ul className="waiting-list">
              {overdue.map((r) => (
                <li key={r.id}>
                  <Link to={`/mocs/${r.id}`} className="moc-link">
                    {mocName(r.serialNum, r.title)}
                  </Link>
                  <span className="overdue">
                    {r.temporaryState === "expired"
                      ? `Expired, not restored: ended ${formatDate(r.temporaryUntil)}`
                      : `Target ${formatDate(r.targetDate)}`}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {overdue.length > 0 ? <Link to="/mocs?overdue=1&sort=target">All overdue MOCs</Link> : null}
        </section>
        <section className="card" aria-labelledby="activity-title">
          <h2 id="activity-title">Recent activity on my records</h2>
          {activity.length === 0 ? (
            <p className="empty">Nothing yet.</p>
          ) : (
            <ul className="waiting-list">
              {activity.map((a, i) => (
                <li key={`${a.mocId}-${i}`}>
                  <span>
                    <Link to={`/mocs/${a.mocId}`} className="moc-link">
                      {mocName(a.serialNum, a.title)}
                    </Link>{" "}
                    {a.action}
                    {a.by ? ` — ${a.by}` : ""}
                  </span>
                  <time className="muted" dateTime={a.at}>
                    {formatDateTime(a.at)}
                  </time>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}
