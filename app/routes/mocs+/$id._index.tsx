import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { isOpenItem } from "~/models/moc/moc-closure";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { Form } from "~/components/form";
import { z } from "zod";
import { ChatPanel } from "~/components/chat";
import { CONFIRM_DELETE_ID, CONFIRM_DELETE_PARAM, ConfirmDelete } from "~/components/confirm";
import { SubmitButton } from "~/components/submit";
import { formatDate, formatDateTime, TemporaryBadge } from "~/components/moc";
import { Timeline } from "~/components/moc-record";
import { PartView, TableView } from "~/components/moc-parts";
import { describeMocParts, type MocPart, type MocTable } from "~/models/moc/moc-parts.server";
import { namesOf } from "~/models/moc/moc-names";
import type { TemporaryChange } from "#db/schema";
import { deviationOutstanding, temporaryStateOn, unresolved } from "~/models/moc/moc-document";
import { canAnswerEffectivenessReview, canViewMoc } from "~/models/authz/authz.server";
import { effectivenessReviewOf } from "~/models/moc/effectiveness.server";
import { EffectivenessPanel, FollowUpLinks } from "~/components/effectiveness";
import { roomOfMoc } from "~/models/moc/moc-record.server";
import { assignMocRole, cloneMoc, deleteMoc } from "~/models/moc/moc.server";
import { fourEyesAssignment, fourEyesConflicts } from "~/models/moc/moc-steps.server";
import { SignatureBlocks } from "~/components/signatures";
import { chatPageAction, chatPanelData, isChatPost } from "~/web/chat-page.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions, mocPermissions, requireMocForPage } from "~/web/moc-page.server";
import { runForPage } from "~/utils/page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";
import { CirculationsSection } from "~/components/circulations";
import { circulationsPanel } from "~/models/circulations/circulations.server";
import { RecordLinks } from "~/components/record-links";
import { linksPanel } from "~/web/record-links-page.server";
import { RecordReferences } from "~/components/record-references";
import { isReferencesPost, referencesPageAction, referencesPanel } from "~/web/references-page.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc, principals } = await requireMocForPage(request, params.id);
  const { assign } = mocPermissions(user, access, doc, principals);
  const [users, chat, circulations, effectiveness] = await Promise.all([
    Object.values(assign).some(Boolean) ? activeUserOptions() : [],
    // A delegate who sees the MOC only through the absent person does not join its chat.
    canViewMoc(user, access) ? chatPanelData(request, user, roomOfMoc(access)) : null,
    // Circulated for acknowledgement once completed (issue 41).
    access.completed ? circulationsPanel(user, { kind: "moc", id: access.id }) : null,
    // Its effectiveness review once completed (issue 42).
    access.completed ? effectivenessReviewOf(access.id) : null,
  ]);
  // Linked records (issue 42): those whose other end the reader may read too.
  const links = await linksPanel(user, { kind: "moc", id: access.id });
  // Four eyes: each role's picker offers only the people who may hold it.
  const pickers = Object.fromEntries(
    ASSIGNABLE.map((role) => [
      role,
      users.filter(
        (u) => !fourEyesAssignment(access, role, u._id, u.name) && (role !== "hseq" || u.department === "hseq"),
      ),
    ]),
  ) as Record<(typeof ASSIGNABLE)[number], typeof users>;
  // External references (issue 42): shown to every reader, changed by those who may.
  const references = await referencesPanel(user, { kind: "moc", id: access.id });
  return {
    pickers,
    chat,
    circulations,
    fourEyes: fourEyesConflicts(access),
    described: describeMocParts(doc),
    effectiveness,
    canAnswerReview: canAnswerEffectivenessReview(user),
    links,
    references,
  };
}

const ASSIGNABLE = ["verifier", "approver", "implementer", "hseq"] as const;
const ROLE_LABEL = {
  verifier: "Verifier",
  approver: "Approver",
  implementer: "Implementer",
  hseq: "HSEQ user",
} as const;

/** An empty optional text field posts "": read it as absent. */
const optionalReason = z.preprocess((v) => (v === "" ? undefined : v), z.string().trim().max(5000).optional());

const intentSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("clone") }),
  z.object({ intent: z.literal("delete"), confirmed: z.literal("yes").optional(), reason: optionalReason }),
  z.object({
    intent: z.literal("assign"),
    role: z.enum(ASSIGNABLE),
    userId: z.uuid({ error: "Choose a person" }),
    reason: optionalReason,
  }),
]);

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireMocForPage(request, params.id);
  const here = `/mocs/${doc._id}`;
  const form = await request.formData();
  if (isChatPost(form)) return chatPageAction(form, user, { mocId: doc._id }, here);
  if (isReferencesPost(form)) return referencesPageAction(form, user, { kind: "moc", id: doc._id }, here);
  const parsed = intentSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    return redirectWithFlash(here, {
      kind: "error",
      message: parsed.error.issues[0]?.message ?? "That action was not understood.",
    });
  }
  const input = parsed.data;
  if (input.intent === "clone") {
    const result = await runForPage(() => cloneMoc(user, doc._id));
    if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return redirectWithFlash(`/mocs/${result.value._id}`, {
      kind: "success",
      message: `MOC ${doc.serial_num} was cloned into MOC ${result.value.serial_num}.`,
    });
  }
  if (input.intent === "delete") {
    // Only the confirmation step's button deletes; a bare "delete" post asks first.
    if (!input.confirmed) return redirect(`${here}?${CONFIRM_DELETE_PARAM}#${CONFIRM_DELETE_ID}`);
    const result = await runForPage(() => deleteMoc(user, doc._id, input.reason));
    if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return redirectWithFlash("/mocs", { kind: "success", message: `MOC ${doc.serial_num} was deleted.` });
  }
  const result = await runForPage(() =>
    assignMocRole(user, { mocId: doc._id, userId: input.userId, role: input.role, reason: input.reason }),
  );
  if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
  return redirectWithFlash(here, {
    kind: "success",
    message: `The ${ROLE_LABEL[input.role].toLowerCase().replace("hseq", "HSEQ")} is assigned and notified.`,
  });
}

/** A plan's link on the record: edit it, or once approved mark its items done (pages hide what cannot be done). */
const planLink = (to: string, access: "edit" | "mark" | null, what: string, items: string) =>
  access === "edit" ? { to, label: `Edit ${what}` } : access === "mark" ? { to, label: `Mark ${items} done` } : null;

/** The link a plan's card carries, as a button. */
const planEdit = (link: { to: string; label: string } | null) =>
  link ? (
    <Link to={link.to} className="button button-small no-print">
      {link.label}
    </Link>
  ) : null;

/**
 * Under a plan's table: its open items, each a link to cancel it with a reason, for those who may
 * (docs/decisions/033-closure-gates.md).
 */
function CancelLinks<Item extends { _id: string; done: boolean; cancelled?: unknown }>({
  items,
  plan,
  name,
}: {
  items: Item[];
  plan: "action" | "manual_plan";
  name: (item: Item) => string;
}) {
  const open = items.filter((item) => isOpenItem(item as Parameters<typeof isOpenItem>[0]));
  if (!open.length) return null;
  return (
    <ul className="cancel-links no-print" aria-label="Cancel an open item with a reason">
      {open.map((item) => (
        <li key={item._id}>
          <Link to={`cancel-item?plan=${plan}&item=${item._id}`}>Cancel “{name(item)}”…</Link>
        </li>
      ))}
    </ul>
  );
}

/** A temporary change: its end date, where its ending stands, and what has been recorded. */
function TemporaryPanel({
  temporary,
  today,
  nameOf,
}: {
  temporary: TemporaryChange;
  today: string;
  nameOf: (id: string | null) => string;
}) {
  const state = temporaryStateOn(temporary, today)!;
  const { restoration, extension } = temporary;
  const tone =
    state === "expired"
      ? "callout-danger"
      : state === "restored" || state === "made-permanent"
        ? ""
        : "callout-warning";
  return (
    <section className={`card callout ${tone}`} aria-labelledby="temporary-title">
      <h2 id="temporary-title">Temporary change</h2>
      <p>
        <TemporaryBadge state={state} until={temporary.until} />
      </p>
      <dl className="answers">
        <dt>Must end by</dt>
        <dd className={state === "expired" ? "overdue" : undefined}>{formatDate(temporary.until)}</dd>
        {state === "expired" ? (
          <>
            <dt>What now</dt>
            <dd>
              The end date has passed and the original condition is not confirmed restored. The implementer reports it
              restored (HSEQ confirms), asks the approver for an extension, or makes the change permanent. The HSEQ
              department is emailed every day until then.
            </dd>
          </>
        ) : null}
        {restoration ? (
          <>
            <dt>Restoration</dt>
            <dd>
              {restoration.details} — reported by {nameOf(restoration.reportedBy)},{" "}
              {formatDateTime(restoration.reportedAt)}
              {restoration.confirmed === null
                ? "; waiting for the HSEQ user's confirmation"
                : restoration.confirmed
                  ? `; confirmed by ${nameOf(restoration.confirmedBy)}`
                  : `; not confirmed by ${nameOf(restoration.confirmedBy)}${restoration.comment ? `: ${restoration.comment}` : ""}`}
            </dd>
          </>
        ) : null}
        {extension ? (
          <>
            <dt>Extension</dt>
            <dd>
              From {formatDate(extension.previous_date)} to {formatDate(extension.new_date)}: {extension.reason}
              {extension.approved === null
                ? " — waiting for the approver"
                : extension.approved === "yes"
                  ? ` — approved by ${nameOf(extension.resolvedBy)}`
                  : ` — rejected by ${nameOf(extension.resolvedBy)}${extension.comment ? `: ${extension.comment}` : ""}`}
            </dd>
          </>
        ) : null}
        {temporary.permanent_moc ? (
          <>
            <dt>Made permanent by</dt>
            <dd>
              <Link to={`/mocs/${temporary.permanent_moc}`}>the MOC cloned from this one</Link>
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

export default function MocRecord() {
  const { moc, permissions, today } = useMocLayoutData();
  const { pickers, chat, circulations, fourEyes, described, references } = useLoaderData<typeof loader>();
  const { links } = useLoaderData<typeof loader>();
  const { effectiveness, canAnswerReview } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const confirmingDelete = searchParams.has(CONFIRM_DELETE_PARAM);
  const people = moc;
  const { decline, extentionsAndDeviations: deviations } = moc;
  const allUsers = moc.all_users ?? [];
  const nameOf = namesOf(moc);
  const targetDate = moc.target_date;
  const overdue = targetDate && targetDate < today && !moc.completed && moc.status !== "decline";
  // The part in hand stays open; a part submitted before it is folded (docs/decisions/032-pages-at-sea.md);
  // the parts nobody has reached yet are one list at the end.
  const current = moc.completed || moc.status === "decline" ? null : moc.status;
  // Part A is never folded: it says what the change is, which every later step decides on.
  const folded = (part: MocPart) => part.status !== "a" && part.status !== current && part.state === "submitted";
  const notReached = described.parts.filter((part) => part.state === "empty");
  const [impactTable, actionTable, manualsTable, trainingsTable] = described.tables as [
    MocTable,
    MocTable,
    MocTable,
    MocTable | undefined,
  ];
  return (
    <div className="parts">
      {fourEyes.length ? (
        <div className="callout callout-danger" role="alert">
          {fourEyes.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      ) : null}
      {decline ? (
        <div className="callout callout-danger" role="note">
          <strong>
            Declined at {decline.stage === "d" ? "approval (Part D)" : "the implementer assessment (Part B)"}.
          </strong>{" "}
          Reason: {decline.reason}
        </div>
      ) : null}
      {deviationOutstanding(deviations) ? (
        <div className="callout callout-warning" role="note">
          <strong>Waiting for a decision</strong> on{" "}
          {[
            unresolved(deviations?.deviation) ? "a deviation" : null,
            unresolved(deviations?.extension) ? `an extension to ${formatDate(deviations!.extension!.new_date)}` : null,
          ]
            .filter(Boolean)
            .join(" and ")}{" "}
          from the approver or the HSEQ user.
        </div>
      ) : null}

      {moc.temporary ? <TemporaryPanel temporary={moc.temporary} today={today} nameOf={nameOf} /> : null}

      {effectiveness ? (
        <EffectivenessPanel mocId={moc._id} review={effectiveness} today={today} canAnswer={canAnswerReview} />
      ) : null}

      <section className="card" aria-labelledby="people-title">
        <h2 id="people-title">People and dates</h2>
        <dl className="answers">
          <dt>Originator</dt>
          <dd>{people.originator_id?.name ?? "—"}</dd>
          <dt>Implementer</dt>
          <dd>{people.implementer_id?.name ?? "—"}</dd>
          <dt>HSEQ user</dt>
          <dd>{people.hseq_id?.name ?? "—"}</dd>
          <dt>Approver</dt>
          <dd>{people.approver_id?.name ?? "—"}</dd>
          <dt>Verifier</dt>
          <dd>
            {people.verifier_id?.name ?? (people.hseq_id ? `${people.hseq_id.name} (HSEQ user, no verifier set)` : "—")}
          </dd>
          <dt>Target date</dt>
          <dd className={overdue ? "overdue" : undefined}>
            {formatDate(targetDate)}
            {overdue ? " (overdue)" : ""}
          </dd>
          <dt>Raised</dt>
          <dd>{formatDateTime(moc.createdAt)}</dd>
          {moc.previous_moc ? (
            <>
              <dt>Cloned from</dt>
              <dd>
                <Link to={`/mocs/${moc.previous_moc}`}>the earlier MOC</Link>
              </dd>
            </>
          ) : null}
          <dt>Everyone involved</dt>
          <dd>{allUsers.map((u) => u.name).join(", ") || "—"}</dd>
        </dl>
      </section>

      {described.parts
        .filter((part) => part.state !== "empty")
        .map((part) => (
          <PartView key={part.id} part={part} folded={folded(part)} />
        ))}
      {notReached.length ? (
        <section className="card" aria-labelledby="parts-to-come-title">
          <h2 id="parts-to-come-title">Not filled in yet</h2>
          <ul className="parts-to-come">
            {notReached.map((part) => (
              <li key={part.id} id={part.id}>
                {part.title}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <TableView
        table={impactTable}
        extra={
          permissions.canEditPlans ? (
            <Link to="impact" className="button button-small no-print">
              Edit impact assessment
            </Link>
          ) : null
        }
      >
        {permissions.frozen && !moc.completed ? (
          <p className="muted" id="frozen-note">
            Approved: the change, its impact assessment, its risk assessment and the plans&apos; items are frozen. They
            change only through a deviation reported with the implementation (Part E), which goes back for decision.
          </p>
        ) : null}
        <h3>Risk assessment</h3>
        <p className="no-print">
          <Link to="attachments">All files attached to this MOC</Link>
        </p>
        {moc.risk_assessment ? (
          <p>
            <a href={moc.risk_assessment} rel="noopener noreferrer">
              Open the risk assessment
            </a>
          </p>
        ) : (
          <p className="muted">No risk assessment attached.</p>
        )}
        {permissions.canEditPlans ? (
          <Link to="risk" className="button button-small no-print">
            {moc.risk_assessment ? "Replace the risk assessment" : "Attach a risk assessment"}
          </Link>
        ) : null}
      </TableView>

      <TableView
        table={actionTable}
        extra={planEdit(planLink("actions", permissions.planAccess.action, "action plan", "actions"))}
      >
        {permissions.canCancelPlanItems ? (
          <CancelLinks items={moc.action?.items ?? []} plan="action" name={(item) => item.description} />
        ) : null}
        <FollowUpLinks mocId={moc._id} items={moc.action?.items ?? []} name={(item) => item.description} />
        {!trainingsTable && permissions.planAccess.action === "edit" && moc.action?.items?.length ? (
          <p className="no-print">
            <Link to="trainings">Make an action a training…</Link>
          </p>
        ) : null}
      </TableView>

      {trainingsTable ? (
        <TableView
          table={trainingsTable}
          extra={
            <Link to="trainings" className="button button-small no-print">
              Trainings and attendance
            </Link>
          }
        />
      ) : null}

      <TableView
        table={manualsTable}
        extra={planEdit(planLink("manuals", permissions.planAccess.manuals, "manuals plan", "items"))}
      >
        {permissions.canCancelPlanItems ? (
          <CancelLinks items={moc.manual_plan?.items ?? []} plan="manual_plan" name={(item) => item.document} />
        ) : null}
        <FollowUpLinks mocId={moc._id} items={moc.manual_plan?.items ?? []} name={(item) => item.document} />
      </TableView>

      <section className="card" aria-labelledby="signatures-title">
        <h2 id="signatures-title">Signatures</h2>
        <SignatureBlocks signatures={moc.signatureManifestations ?? []} empty="No decisions signed yet." />
      </section>

      <RecordReferences panel={references} />

      <RecordLinks panel={links} here={`/mocs/${moc._id}`} />

      <CirculationsSection record={`moc:${moc._id}`} panel={circulations} />

      <section className="card" aria-labelledby="log-title">
        <h2 id="log-title">History</h2>
        <Timeline logs={moc.logs} />
      </section>

      {chat ? <ChatPanel chat={chat} /> : null}

      <section className="card no-print" aria-labelledby="manage-title">
        <h2 id="manage-title">Actions</h2>
        <div className="row">
          <Form method="post">
            <SubmitButton name="intent" value="clone" className="button" pendingText="Cloning…">
              Clone into a new MOC
            </SubmitButton>
          </Form>
          <Link to={`/mocs/${moc._id}/attachments`} className="button">
            Attachments
          </Link>
          <Link to={`/mocs/${moc._id}/print`} className="button">
            Print view
          </Link>
          <a href={`/mocs/${moc._id}/pdf`} className="button">
            Download PDF
          </a>
          {permissions.canDelete ? (
            <Link
              to={`?${CONFIRM_DELETE_PARAM}#${CONFIRM_DELETE_ID}`}
              className="button button-danger"
              preventScrollReset
            >
              Delete MOC
            </Link>
          ) : null}
        </div>
        {permissions.canDelete && confirmingDelete ? (
          <ConfirmDelete
            title={`Delete MOC ${moc.serial_num}?`}
            confirmLabel={`Delete MOC ${moc.serial_num}`}
            cancelTo={`/mocs/${moc._id}`}
            reason={permissions.deleteNeedsReason ? "Why is it deleted? (kept in its history)" : undefined}
          >
            <p>
              It disappears from every list and its steps can no longer be submitted. An admin can still find it under
              &ldquo;Deleted&rdquo; and restore it.
            </p>
          </ConfirmDelete>
        ) : null}
        {ASSIGNABLE.filter((role) => permissions.assign[role]).map((role) => (
          <Form key={role} method="post" className="row" style={{ marginTop: "1rem" }}>
            <input type="hidden" name="intent" value="assign" />
            <input type="hidden" name="role" value={role} />
            <div className="field">
              <label htmlFor={`assign-${role}`}>{ROLE_LABEL[role]}</label>
              <select id={`assign-${role}`} name="userId" defaultValue="">
                <option value="">Choose a person</option>
                {pickers[role].map((u) => (
                  <option key={u._id} value={u._id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </div>
            {permissions.assign[role]!.needsReason ? (
              <div className="field">
                <label htmlFor={`assign-${role}-reason`}>
                  Reason for the change (their decision is pending; kept in the history)
                </label>
                <input id={`assign-${role}-reason`} name="reason" required maxLength={5000} />
              </div>
            ) : null}
            <SubmitButton className="button" pendingText="Assigning…">
              {role === "hseq" ? "Assign HSEQ user" : `Assign ${role}`}
            </SubmitButton>
          </Form>
        ))}
      </section>
    </div>
  );
}
