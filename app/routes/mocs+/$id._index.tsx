import { redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/node";
import { isOpenItem, planItemState } from "~/models/moc-closure";
import { Form, Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { z } from "zod";
import { ChatPanel } from "~/components/chat";
import { CONFIRM_DELETE_ID, CONFIRM_DELETE_PARAM, ConfirmDelete } from "~/components/confirm";
import { SubmitButton } from "~/components/forms";
import { departmentLabel, formatDate, formatDateTime, TemporaryBadge } from "~/components/moc";
import { Answers, Part, RichText, Timeline } from "~/components/moc-record";
import type { TemporaryChange } from "#db/schema";
import { deviationOutstanding, temporaryStateOn, unresolved } from "~/models/moc-document";
import { canViewMoc } from "~/models/authz.server";
import { roomOfMoc } from "~/models/chat.server";
import { assignMocRole, cloneMoc, deleteMoc } from "~/models/moc.server";
import { fourEyesAssignment, fourEyesConflicts } from "~/models/moc-steps.server";
import { SignatureBlocks } from "~/components/signatures";
import chatStyles from "~/styles/chat.css?url";
import { chatPageAction, chatPanelData, isChatPost } from "~/web/chat-page.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions, mocPermissions, requireMocForPage } from "~/web/moc-page.server";
import { runForPage } from "~/utils/page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: chatStyles }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc, principals } = await requireMocForPage(request, params.id);
  const { canManage } = mocPermissions(user, access, doc, principals);
  const [users, chat] = await Promise.all([
    canManage ? activeUserOptions() : [],
    // A delegate who sees the MOC only through the absent person does not join its chat.
    canViewMoc(user, access) ? chatPanelData(request, user, roomOfMoc(access)) : null,
  ]);
  // Four eyes: each role's picker offers only the people who may hold it.
  const pickers = Object.fromEntries(
    ASSIGNABLE.map((role) => [role, users.filter((u) => !fourEyesAssignment(access, role, u._id, u.name))]),
  ) as Record<(typeof ASSIGNABLE)[number], typeof users>;
  return { pickers, chat, fourEyes: fourEyesConflicts(access) };
}

const ASSIGNABLE = ["verifier", "approver", "implementer"] as const;

const intentSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("clone") }),
  z.object({ intent: z.literal("delete"), confirmed: z.literal("yes").optional() }),
  z.object({
    intent: z.literal("assign"),
    role: z.enum(["implementer", "approver", "verifier"]),
    userId: z.uuid({ error: "Choose a person" }),
  }),
]);

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireMocForPage(request, params.id);
  const here = `/mocs/${doc._id}`;
  const form = await request.formData();
  if (isChatPost(form)) return chatPageAction(form, user, { mocId: doc._id }, here);
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
    const result = await runForPage(() => deleteMoc(user, doc._id));
    if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return redirectWithFlash("/mocs", { kind: "success", message: `MOC ${doc.serial_num} was deleted.` });
  }
  const result = await runForPage(() =>
    assignMocRole(user, { mocId: doc._id, userId: input.userId, role: input.role }),
  );
  if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
  return redirectWithFlash(here, { kind: "success", message: `The ${input.role} is assigned and notified.` });
}

type PlanItem = {
  _id: string;
  owner: string | null;
  due: string | null;
  done: boolean;
  cancelled?: { reason: string; byName: string; at: string } | null;
};

/** A plan on the record: its own leading columns, then owner, due date and done, as every plan has. */
function PlanTable<Item extends PlanItem>({
  id,
  title,
  edit,
  empty,
  items,
  columns,
  nameOf,
  cancel,
}: {
  id: string;
  title: string;
  edit: { to: string; label: string } | null;
  empty: string;
  items: Item[];
  columns: [label: string, cell: (item: Item) => string][];
  nameOf: (id: string | null) => string;
  /** The page cancelling an open item with a reason, for those who may (docs/decisions/033-closure-gates.md). */
  cancel?: ((item: Item) => string) | null;
}) {
  return (
    <section className="card table-wrap" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        {title}
        {edit ? (
          <Link to={edit.to} className="button button-small no-print">
            {edit.label}
          </Link>
        ) : null}
      </h2>
      {items.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <table>
          <thead>
            <tr>
              {columns.map(([label]) => (
                <th key={label} scope="col">
                  {label}
                </th>
              ))}
              <th scope="col">Owner</th>
              <th scope="col">Due</th>
              <th scope="col">Done</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item._id}>
                {columns.map(([label, cell]) => (
                  <td key={label}>{cell(item)}</td>
                ))}
                <td>{item.owner ? nameOf(item.owner) : "—"}</td>
                <td>{formatDate(item.due)}</td>
                <td>
                  {planItemState(item)}
                  {cancel && isOpenItem(item) ? (
                    <>
                      {" "}
                      <Link to={cancel(item)} className="no-print">
                        Cancel…
                      </Link>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
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
  const { pickers, chat, fourEyes } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const confirmingDelete = searchParams.has(CONFIRM_DELETE_PARAM);
  const forms = moc;
  const people = moc;
  const { decline, extentionsAndDeviations: deviations } = moc;
  const impact = moc.impact_assessment ?? [];
  const actionPlan = moc.action?.items ?? [];
  const manualPlan = moc.manual_plan?.items ?? [];
  const allUsers = moc.all_users ?? [];
  const nameOf = (id: string | null) =>
    allUsers.find((u) => u._id === id)?.name ??
    [...pickers.verifier, ...pickers.implementer].find((u) => u._id === id)?.name ??
    "—";
  const targetDate = moc.target_date;
  const overdue = targetDate && targetDate < today && !moc.completed && moc.status !== "decline";
  // The part in hand stays open; a part submitted before it is folded (docs/decisions/032-pages-at-sea.md);
  // the parts nobody has reached yet are one list at the end.
  const current = moc.completed || moc.status === "decline" ? null : moc.status;
  const parts = [
    { status: "a", title: "Part A — Originator", form: forms.originator_form },
    { status: "b", title: "Part B — Implementer assessment", form: forms.implementer_form },
    { status: "c", title: "Part C — HSEQ review", form: forms.hseq_form },
    { status: "d", title: "Part D — Approval", form: forms.approver_form },
    { status: "e", title: "Part E — Implementation", form: forms.implementation },
    { status: "f", title: "Part F — Verification", form: forms.verifier_form },
  ] as const;
  // Part A is never folded: it says what the change is, which every later step decides on.
  const folded = (status: string, form: unknown) =>
    status !== "a" &&
    status !== current &&
    typeof (form as { submittedAt?: unknown } | null | undefined)?.submittedAt === "string";
  const notReached = parts.filter((part) => !part.form);
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

      <Part
        title="Part A — Originator"
        form={forms.originator_form}
        id="part-a"
        folded={folded("a", forms.originator_form)}
        listedWhenEmpty
      >
        <dl className="answers">
          <dt>Department of change</dt>
          <dd>{departmentLabel(forms.originator_form?.["department-of-change"]?.value as string)}</dd>
          <dt>Description of change</dt>
          <dd>
            <RichText html={forms.originator_form?.["description-of-change"]?.value} />
          </dd>
        </dl>
        <Answers
          form={forms.originator_form}
          rows={[
            ["reason-for-change", "Reason for change"],
            ["affected-departments", "Affected departments"],
            ["departments-to-inform", "Departments to inform"],
            ["change-type", "Permanent or temporary"],
            ["temporary-until", "Temporary until"],
          ]}
        />
      </Part>
      <Part
        title="Part B — Implementer assessment"
        form={forms.implementer_form}
        id="part-b"
        folded={folded("b", forms.implementer_form)}
        listedWhenEmpty
      >
        <Answers
          form={forms.implementer_form}
          rows={[
            ["details-assessed", "Details assessed"],
            ["necessary-justified", "Change necessary and justified"],
            ["approver-name", "Approver"],
            ["hseq-name", "HSEQ user"],
            ["target-date", "Target date"],
            ["decline-reason", "Decline reason"],
          ]}
        />
      </Part>
      <Part
        title="Part C — HSEQ review"
        form={forms.hseq_form}
        id="part-c"
        folded={folded("c", forms.hseq_form)}
        listedWhenEmpty
      >
        <Answers
          form={forms.hseq_form}
          rows={[
            ["hseq-change-adequately", "Change adequately described"],
            ["hseq-justification-satisfactory", "Justification satisfactory"],
            ["hseq-risk-assessment-covered", "Risk assessment covers the change"],
            ["decline-reason", "Reason for return"],
          ]}
        />
      </Part>
      <Part
        title="Part D — Approval"
        form={forms.approver_form}
        id="part-d"
        folded={folded("d", forms.approver_form)}
        listedWhenEmpty
      >
        <Answers
          form={forms.approver_form}
          rows={[
            ["approver-changes-reviewed", "Changes reviewed"],
            ["approver-moc-approved", "MOC approved"],
            ["decline-reason", "Decline reason"],
          ]}
        />
      </Part>
      <Part
        title="Part E — Implementation"
        form={forms.implementation}
        id="part-e"
        folded={folded("e", forms.implementation)}
        listedWhenEmpty
      >
        <Answers
          form={forms.implementation}
          rows={[
            ["deviation-during-implementation", "Deviation during implementation"],
            ["moc-require-extension", "Extension required"],
            ["moc-circulated", "MOC circulated"],
            ["implementation-as-planned", "Implemented as planned"],
            ["completion-date", "Completion date"],
            ["extension-date", "Requested target date"],
            ["extension-reason", "Extension reason"],
          ]}
        />
        {forms.implementation?.["deviation-details"]?.value ? (
          <>
            <h3>Deviation details</h3>
            <RichText html={forms.implementation["deviation-details"].value} />
          </>
        ) : null}
        {deviations ? (
          <dl className="answers">
            {deviations.deviation ? (
              <>
                <dt>Deviation decision</dt>
                <dd>
                  {deviations.deviation.resolved
                    ? deviations.deviation.approved === "yes"
                      ? "Approved"
                      : "Rejected"
                    : "Waiting"}
                  {deviations.deviation.comment ? ` — ${deviations.deviation.comment}` : ""}
                </dd>
              </>
            ) : null}
            {deviations.extension ? (
              <>
                <dt>Extension decision</dt>
                <dd>
                  {deviations.extension.resolved
                    ? deviations.extension.approved === "yes"
                      ? "Approved"
                      : "Rejected"
                    : "Waiting"}
                  {deviations.extension.comment ? ` — ${deviations.extension.comment}` : ""}
                </dd>
              </>
            ) : null}
          </dl>
        ) : null}
      </Part>
      <Part
        title="Part F — Verification"
        form={forms.verifier_form}
        id="part-f"
        folded={folded("f", forms.verifier_form)}
        listedWhenEmpty
      >
        <Answers
          form={forms.verifier_form}
          rows={[
            ["action-plan-correct", "Action plan correct"],
            ["manuals-changed", "Manuals and drawings changed"],
            ["trainings-complete", "Trainings complete"],
            ["feedback-complete", "Feedback complete"],
            ["moc-effective", "MOC effective"],
            ["close-moc", "Close the MOC"],
          ]}
        />
      </Part>
      {notReached.length ? (
        <section className="card" aria-labelledby="parts-to-come-title">
          <h2 id="parts-to-come-title">Not filled in yet</h2>
          <ul className="parts-to-come">
            {notReached.map((part) => (
              <li key={part.status} id={`part-${part.status}`}>
                {part.title}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section className="card" aria-labelledby="impact-title">
        <h2 id="impact-title">
          Impact assessment
          {permissions.canEditPlans ? (
            <Link to="impact" className="button button-small no-print">
              Edit impact assessment
            </Link>
          ) : null}
        </h2>
        {impact.length === 0 ? (
          <p className="muted">No impact assessment yet.</p>
        ) : (
          <dl className="answers">
            {impact.map((item, i) => (
              <div key={i} style={{ display: "contents" }}>
                <dt>{item.category}</dt>
                <dd>{item.hazards.join("; ") || "No hazards listed"}</dd>
              </div>
            ))}
          </dl>
        )}
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
      </section>

      <PlanTable
        id="action"
        title="Action plan"
        edit={permissions.canEditPlans ? { to: "actions", label: "Edit action plan" } : null}
        empty="No actions yet."
        items={actionPlan}
        columns={[["Action", (item) => item.description]]}
        nameOf={nameOf}
        cancel={permissions.canCancelPlanItems ? (item) => `cancel-item?plan=action&item=${item._id}` : null}
      />

      <PlanTable
        id="manuals"
        title="Manuals and drawings plan"
        edit={permissions.canEditPlans ? { to: "manuals", label: "Edit manuals plan" } : null}
        empty="No manuals or drawings to change yet."
        items={manualPlan}
        columns={[
          ["Document", (item) => item.document],
          ["Change", (item) => item.change],
        ]}
        nameOf={nameOf}
        cancel={permissions.canCancelPlanItems ? (item) => `cancel-item?plan=manual_plan&item=${item._id}` : null}
      />

      <section className="card" aria-labelledby="signatures-title">
        <h2 id="signatures-title">Signatures</h2>
        <SignatureBlocks signatures={moc.signatureManifestations ?? []} empty="No decisions signed yet." />
      </section>

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
          {permissions.canManage ? (
            <Link
              to={`?${CONFIRM_DELETE_PARAM}#${CONFIRM_DELETE_ID}`}
              className="button button-danger"
              preventScrollReset
            >
              Delete MOC
            </Link>
          ) : null}
        </div>
        {permissions.canManage && confirmingDelete ? (
          <ConfirmDelete
            title={`Delete MOC ${moc.serial_num}?`}
            confirmLabel={`Delete MOC ${moc.serial_num}`}
            cancelTo={`/mocs/${moc._id}`}
          >
            <p>It disappears from every list and its steps can no longer be submitted.</p>
          </ConfirmDelete>
        ) : null}
        {permissions.canManage && moc.status !== "decline" && !moc.completed
          ? ASSIGNABLE.map((role) => (
              <Form key={role} method="post" className="row" style={{ marginTop: "1rem" }}>
                <input type="hidden" name="intent" value="assign" />
                <input type="hidden" name="role" value={role} />
                <div className="field">
                  <label htmlFor={`assign-${role}`}>
                    {role === "verifier" ? "Verifier" : role === "approver" ? "Approver" : "Implementer"}
                  </label>
                  <select id={`assign-${role}`} name="userId" defaultValue="">
                    <option value="">Choose a person</option>
                    {pickers[role].map((u) => (
                      <option key={u._id} value={u._id}>
                        {u.name}
                      </option>
                    ))}
                  </select>
                </div>
                <SubmitButton className="button" pendingText="Assigning…">
                  Assign {role}
                </SubmitButton>
              </Form>
            ))
          : null}
      </section>
    </div>
  );
}
