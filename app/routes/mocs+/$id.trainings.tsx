/**
 * The MOC's trainings (`/mocs/:id/trainings`, docs/decisions/056-training.md): each action-plan item
 * that is a training with who must attend and who has, its attendance records as added, the form
 * recording attendance (for its owner, the implementer and HSEQ, once approved) and the form naming
 * who must attend (for the plan editors). Plain forms told apart by `intent`: they work without
 * JavaScript.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { formatDate, formatDateTime } from "~/components/moc";
import { ErrorList, SubmitButton } from "~/components/submit";
import { canRecordAttendance, canSetTrainingAttendees, isMocApproved, isMocOpen } from "~/models/authz/authz.server";
import { trainingState } from "~/models/moc/moc-closure";
import { trainingPageSchema } from "~/models/moc/training.schema";
import { latestTrainingDay, recordAttendance, setTrainingAttendees } from "~/models/moc/training.server";
import { fieldErrors, runForPage } from "~/utils/page.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions, requireMocForPage } from "~/web/moc-page.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc } = await requireMocForPage(request, params.id);
  const open = isMocOpen(access);
  const approved = isMocApproved(access);
  const maySet = open && canSetTrainingAttendees(user, access);
  const ownerName = (id: string | null) => doc.plan_owners?.find((p) => p._id === id)?.name ?? null;
  const trainings = doc.action.items
    .filter((item) => item.training)
    .map((item) => {
      const state = trainingState(item.training!);
      return {
        _id: item._id,
        description: item.description,
        due: item.due,
        owner: ownerName(item.owner),
        cancelled: item.cancelled ?? null,
        attendees: state.attendees,
        missing: state.missing.length,
        records: [...item.training!.attendance].reverse(),
        mayRecord: open && approved && !item.cancelled && canRecordAttendance(user, access, item),
      };
    });
  return {
    mocId: doc._id,
    open,
    approved,
    maySet,
    trainings,
    actions: maySet
      ? doc.action.items
          .filter((i) => !i.training && !i.cancelled)
          .map((i) => ({ _id: i._id, description: i.description }))
      : [],
    users: maySet ? await activeUserOptions() : [],
    today: new Date().toISOString().slice(0, 10),
    latest: latestTrainingDay(),
  };
}

type Answer = { at: string; message: string | null; errors: Record<string, string[]> };

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireMocForPage(request, params.id);
  const form = await request.formData();
  // Which form answered (each carries its own `at`): the errors show beside it.
  const at = String(form.get("at") ?? "");
  const submission = parseWithZod(form, { schema: trainingPageSchema });
  if (submission.status !== "success") {
    const errors = (submission.reply().error ?? {}) as Record<string, string[]>;
    return data<Answer>({ at, message: errors[""]?.[0] ?? null, errors }, { status: 400 });
  }
  const input = submission.value;
  const result = await runForPage(() =>
    input.intent === "attendees"
      ? setTrainingAttendees(user, { mocId: doc._id, itemId: input.item_id, attendees: input.attendees })
      : recordAttendance(user, {
          mocId: doc._id,
          itemId: input.item_id,
          attendees: input.attendees,
          date: input.date,
          attended: input.correction !== "on",
          note: input.note,
        }),
  );
  if (!result.ok) {
    // Issues on `attendees.N` show on the group.
    const errors = fieldErrors(result.error, (path) => path.replace(/\.\d+$/, ""));
    return data<Answer>({ at, message: result.error.message, errors }, { status: result.error.status });
  }
  return redirectWithFlash(`/mocs/${doc._id}/trainings`, {
    kind: "success",
    message: input.intent === "attendees" ? "Who must attend is saved." : "The attendance is recorded.",
  });
}

/** The errors of the form `at` names (its intent and item), if the last answer was for it. */
function useErrorsFor(at: string) {
  const answer = useActionData<typeof action>() as Answer | undefined;
  return answer?.at === at ? answer : null;
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

/** Pick people from the user directory (a plain multiple select: keyboard and no-JS friendly). */
function PeopleSelect({
  id,
  users,
  selected,
  errors,
}: {
  id: string;
  users: Loaded["users"];
  selected: string[];
  errors: string[] | undefined;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Who must attend</label>
      <select
        id={id}
        name="attendees"
        multiple
        size={Math.min(8, Math.max(3, users.length))}
        defaultValue={selected}
        aria-describedby={`${id}-hint ${id}-error`}
        aria-invalid={errors?.length ? true : undefined}
        style={{ width: "100%" }}
      >
        {users.map((u) => (
          <option key={u._id} value={u._id}>
            {u.name}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="hint">
        Hold Ctrl (⌘ on a Mac) to pick several people.
      </p>
      <ErrorList id={`${id}-error`} errors={errors} />
    </div>
  );
}

function AttendanceForm({
  training,
  today,
  latest,
}: {
  training: Loaded["trainings"][number];
  today: string;
  latest: string;
}) {
  const answer = useErrorsFor(`attendance:${training._id}`);
  const prefix = `attendance-${training._id}`;
  return (
    <Form method="post" className="stack" aria-labelledby={`${prefix}-title`}>
      <h4 id={`${prefix}-title`}>Record attendance</h4>
      <input type="hidden" name="intent" value="attendance" />
      <input type="hidden" name="at" value={`attendance:${training._id}`} />
      <input type="hidden" name="item_id" value={training._id} />
      {answer?.message && !Object.keys(answer.errors).some((k) => k !== "") ? (
        <ErrorList errors={[answer.message]} />
      ) : null}
      <fieldset className="field" aria-describedby={`${prefix}-people-error`}>
        <legend>Who attended</legend>
        {training.attendees.map((a) => (
          <label key={a._id} className="checkbox">
            <input type="checkbox" name="attendees" value={a._id} />
            <span>
              {a.name}
              {a.attendedOn ? <span className="muted"> (attended {formatDate(a.attendedOn)})</span> : null}
            </span>
          </label>
        ))}
        <ErrorList id={`${prefix}-people-error`} errors={answer?.errors.attendees} />
      </fieldset>
      <div className="field">
        <label htmlFor={`${prefix}-date`}>Date of the training</label>
        <input
          id={`${prefix}-date`}
          name="date"
          type="date"
          required
          defaultValue={today}
          max={latest}
          aria-describedby={`${prefix}-date-error`}
          aria-invalid={answer?.errors.date ? true : undefined}
        />
        <ErrorList id={`${prefix}-date-error`} errors={answer?.errors.date} />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-note`}>Note (optional)</label>
        <textarea id={`${prefix}-note`} name="note" rows={2} maxLength={5000} />
      </div>
      <label className="checkbox">
        <input type="checkbox" name="correction" value="on" />
        Correction: the people ticked did not attend after all
      </label>
      <div className="form-actions">
        <SubmitButton pendingText="Recording…">Record attendance</SubmitButton>
      </div>
    </Form>
  );
}

function AttendeesForm({
  itemId,
  users,
  selected,
  approved,
  label,
}: {
  itemId: string;
  users: Loaded["users"];
  selected: string[];
  approved: boolean;
  label: string;
}) {
  const shown = useErrorsFor(`attendees:${itemId}`);
  const prefix = `attendees-${itemId}`;
  return (
    <Form method="post" className="stack">
      <input type="hidden" name="intent" value="attendees" />
      <input type="hidden" name="at" value={`attendees:${itemId}`} />
      <input type="hidden" name="item_id" value={itemId} />
      {shown?.message && !shown.errors.attendees ? <ErrorList errors={[shown.message]} /> : null}
      <PeopleSelect id={`${prefix}-people`} users={users} selected={selected} errors={shown?.errors.attendees} />
      {approved ? (
        <p className="hint">This MOC is approved: people may be added, not removed (cancel the training instead).</p>
      ) : null}
      <div className="form-actions">
        <SubmitButton pendingText="Saving…">{label}</SubmitButton>
      </div>
    </Form>
  );
}

export default function Trainings() {
  const { mocId, open, approved, maySet, trainings, actions, users, today, latest } = useLoaderData<typeof loader>();
  const newAnswer = useErrorsFor("attendees:new");
  return (
    <section className="card" aria-labelledby="trainings-title">
      <h2 id="trainings-title">Trainings</h2>
      <p className="muted">
        An action of the plan may be a training: its description says what, its due date by when, and it names who must
        attend. It is done when everyone named has attended; while one is open, Part F’s “Are trainings complete?”
        cannot be answered yes.
      </p>
      {!approved && open ? <p className="callout">Attendance is recorded once the MOC is approved.</p> : null}
      {trainings.length === 0 ? <p>No trainings in the action plan yet.</p> : null}
      {trainings.map((t) => (
        <article key={t._id} className="card" aria-labelledby={`training-${t._id}`} data-testid="training">
          <h3 id={`training-${t._id}`} style={{ overflowWrap: "anywhere" }}>
            {t.description}
          </h3>
          <dl className="answers">
            <dt>By</dt>
            <dd>{t.due ? formatDate(t.due) : "No date set"}</dd>
            <dt>Owner</dt>
            <dd>{t.owner ?? "—"}</dd>
            <dt>State</dt>
            <dd>
              {t.cancelled
                ? `Cancelled: ${t.cancelled.reason}`
                : t.missing === 0
                  ? "Complete: everyone has attended"
                  : `${t.attendees.length - t.missing} of ${t.attendees.length} attended`}
            </dd>
          </dl>
          <h4>Who must attend</h4>
          <ul>
            {t.attendees.map((a) => (
              <li key={a._id}>
                {a.name}: {a.attendedOn ? `attended on ${formatDate(a.attendedOn)}` : "not attended yet"}
              </li>
            ))}
          </ul>
          {t.records.length ? (
            <details>
              <summary>Attendance records ({t.records.length})</summary>
              <ul>
                {t.records.map((r) => (
                  <li key={r._id}>
                    {r.name} {r.attended ? "attended" : "did not attend (correction)"} on {formatDate(r.on)}; recorded
                    by {r.byName} {formatDateTime(r.at)}
                    {r.note ? `: ${r.note}` : ""}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          {t.mayRecord ? (
            // A new form (boxes unticked) once a record is added.
            <AttendanceForm key={t.records.length} training={t} today={today} latest={latest} />
          ) : null}
          {maySet && !t.cancelled ? (
            <details>
              <summary>Change who must attend</summary>
              <AttendeesForm
                itemId={t._id}
                users={users}
                selected={t.attendees.map((a) => a._id)}
                approved={approved}
                label="Save who must attend"
              />
            </details>
          ) : null}
        </article>
      ))}
      {maySet && actions.length ? (
        <section aria-labelledby="new-training-title">
          <h3 id="new-training-title">Make an action a training</h3>
          <Form method="post" className="stack">
            <input type="hidden" name="intent" value="attendees" />
            <input type="hidden" name="at" value="attendees:new" />
            {newAnswer?.message && !newAnswer.errors.attendees && !newAnswer.errors.item_id ? (
              <ErrorList errors={[newAnswer.message]} />
            ) : null}
            <div className="field">
              <label htmlFor="new-training-item">Action</label>
              <select id="new-training-item" name="item_id" required style={{ width: "100%" }}>
                {actions.map((a) => (
                  <option key={a._id} value={a._id}>
                    {a.description}
                  </option>
                ))}
              </select>
              <ErrorList errors={newAnswer?.errors.item_id} />
            </div>
            <PeopleSelect id="new-training-people" users={users} selected={[]} errors={newAnswer?.errors.attendees} />
            <div className="form-actions">
              <SubmitButton pendingText="Saving…">Make it a training</SubmitButton>
            </div>
          </Form>
        </section>
      ) : null}
      <p>
        <Link to={`/mocs/${mocId}`}>Back to the MOC</Link>
      </p>
    </section>
  );
}
