import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, Outlet, useLoaderData, useLocation, useRouteLoaderData } from "@remix-run/react";
import { StatusBadge, StatusStepper, TemporaryBadge } from "~/components/moc";
import { temporaryStateOn } from "~/models/moc/moc-document";
import { sanitizeRichText } from "~/utils/sanitize.server";
import { currentOwner, currentStage, stateOfDocument } from "~/models/moc/moc-steps.server";
import { mocPermissions, requireMocForPage } from "~/web/moc-page.server";
import { ApprovalChain, RiskBadge } from "~/components/risk";
import { riskOfRecord } from "~/web/risk-page.server";
import { canManageMoc } from "~/models/authz/authz.server";
import { mocName, scopeOf, titleOf } from "~/models/moc/moc-names";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data
      ? `${mocName(data.moc.serial_num, titleOf(data.moc.originator_form))} · Change Management`
      : "MOC · Change Management",
  },
];

/** The record every MOC page shows: its header, the stepper and who owns the current step. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc, principals } = await requireMocForPage(request, params.id);
  // Stored HTML was sanitised on write; sanitise again on the way out, so pages only ever render
  // sanitised HTML whatever is in the database.
  const description = doc.originator_form?.["description-of-change"];
  if (description) description.value = sanitizeRichText(String(description.value ?? ""));
  const details = doc.implementation?.["deviation-details"];
  if (details) details.value = sanitizeRichText(String(details.value ?? ""));
  const deviation = doc.extentionsAndDeviations?.deviation;
  if (deviation?.details) deviation.details = sanitizeRichText(deviation.details);
  const risk = await riskOfRecord(doc);
  return {
    moc: doc,
    owner: risk.waitingOn ?? currentOwner(doc),
    risk,
    stage: currentStage(stateOfDocument(doc)),
    permissions: mocPermissions(user, access, doc, principals),
    viewerId: user._id,
    // A MOC raised without a title or scope asks its originator (or an admin) to record them.
    mayRecordContext: canManageMoc(user, access),
    today: new Date().toISOString().slice(0, 10),
  };
}

export type MocLayoutData = Awaited<ReturnType<typeof loader>>;

/** This layout's loader data, for the pages inside it (the route id follows the file's path). */
export const useMocLayoutData = () => useRouteLoaderData<MocLayoutData>("routes/mocs+/$id")!;

export default function MocLayout() {
  const { moc, owner, stage, permissions, today, risk, mayRecordContext } = useLoaderData<typeof loader>();
  const title = titleOf(moc.originator_form);
  const vessel = moc.originator_form?.vessel?.value;
  const missing = [title ? null : "title", vessel ? null : "vessel"].filter(Boolean);
  const temporaryState = temporaryStateOn(moc.temporary, today);
  const location = useLocation();
  const onRecord = location.pathname === `/mocs/${moc._id}`;
  return (
    <>
      <p className="no-print">
        <Link to={onRecord ? "/mocs" : `/mocs/${moc._id}`}>{onRecord ? "← MOCs" : `← MOC ${moc.serial_num}`}</Link>
      </p>
      <header className="record-header">
        <div>
          <h1>{mocName(moc.serial_num, title)}</h1>
          <p className="muted">
            Vessel:{" "}
            {vessel && typeof vessel === "object" ? (
              <Link to={`/vessels/${vessel._id}`}>{scopeOf(moc.originator_form)}</Link>
            ) : (
              scopeOf(moc.originator_form)
            )}
            {title ? null : " · Title: Not recorded"}
          </p>
          <p className="owner-line">
            <StatusBadge status={moc.status} completed={moc.completed} stage={stage.label} />{" "}
            <RiskBadge level={risk.level} />{" "}
            {temporaryState ? (
              <>
                <TemporaryBadge state={temporaryState} until={moc.temporary!.until} />{" "}
              </>
            ) : null}
            {owner ? (
              <>
                Waiting on <strong>{owner}</strong>
              </>
            ) : moc.completed ? (
              "Closed after verification"
            ) : moc.status === "decline" ? (
              "Declined; it can be cloned into a new MOC"
            ) : null}
          </p>
        </div>
        {onRecord && permissions.openSteps.length > 0 ? (
          <div className="row no-print">
            {permissions.openSteps.map(({ step, path, part, button, onBehalfOf }) => (
              <Link key={step} to={`/mocs/${moc._id}/${path}`} className="button button-primary">
                {step === "originator" && moc.status === "b" ? "Revise Part A" : (button ?? `Open ${part}`)}
                {onBehalfOf ? ` (on behalf of ${onBehalfOf})` : ""}
              </Link>
            ))}
          </div>
        ) : null}
      </header>
      {onRecord && missing.length > 0 && mayRecordContext && !moc.isDeleted ? (
        <p className="callout no-print">
          This MOC does not record its {missing.join(" or ")}.{" "}
          <Link to={`/mocs/${moc._id}/context`}>Record {missing.length > 1 ? "them" : "it"}</Link> so it shows under its
          vessel and people recognise it.
        </p>
      ) : null}
      <StatusStepper
        status={moc.status}
        completed={moc.completed}
        owner={owner}
        part={stage.part}
        declinedAt={moc.decline?.stage ?? null}
      />
      <ApprovalChain approvals={risk.approvals} />
      <Outlet />
    </>
  );
}
