import { getFormProps, getInputProps, getTextareaProps, useForm, type FieldMetadata } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { DEPARTMENTS } from "#db/schema/enums";
import { Checkboxes } from "~/components/circulations";
import { Form } from "~/components/form";
import { ErrorList, SubmitButton } from "~/components/submit";
import { departmentLabel } from "~/models/shared/labels";
import { CIRCULATION_TEXT_MAX } from "~/models/circulations/circulations.constants";
import { circulationBodySchema, recordRefText } from "~/models/circulations/circulations.schema";
import { circulate, circulationDraft, parseRecordRef } from "~/models/circulations/circulations.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, readPageQuery, runForPage } from "~/utils/page.server";
import { requirePageUser } from "~/web/auth.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Circulate ${data.record.label} · Change Management` : "Circulate · Change Management" },
];

const querySchema = z.object({ record: recordRefText });

/** The record to circulate (`?record=moc:<id>`), for whom may circulate it, once finished (403, 404, 409 pages). */
async function draftFor(request: Request) {
  const user = await requirePageUser(request);
  const { record } = readPageQuery(request, querySchema);
  const result = await runForPage(() => circulationDraft(user, parseRecordRef(record)));
  if (!result.ok) pageError(result.error);
  return { user, draft: result.value };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { draft } = await draftFor(request);
  return { ...draft, departments: DEPARTMENTS.map((d) => ({ value: d, label: departmentLabel(d) })) };
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await draftFor(request);
  const submission = parseWithZod(await request.formData(), { schema: circulationBodySchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => circulate(user, submission.value));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error, (path) => path.replace(/\.\d+$/, ""));
  }
  return redirectWithFlash(`/circulations/${result.value._id}`, {
    kind: "success",
    message: `${result.value.record.label} was circulated for acknowledgement; each person reached has been told.`,
  });
}

/** A checkbox group's name, ticked values and errors (its own and its items') from conform. */
function group(meta: FieldMetadata<unknown>) {
  const initial = meta.initialValue;
  return {
    name: meta.name,
    id: meta.id,
    checked: Array.isArray(initial) ? initial.map(String) : typeof initial === "string" ? [initial] : [],
    errors: [...new Set(Object.values(meta.allErrors).flat())],
  };
}

/** Circulate a finished MOC or PCR for "read and understood" (issue 41): works without JavaScript. */
export default function NewCirculation() {
  const { record, vessels, ranks, departments } = useLoaderData<typeof loader>();
  const [form, fields] = useForm<z.input<typeof circulationBodySchema>>({
    id: "new-circulation",
    lastResult: useActionData<typeof action>(),
    shouldRevalidate: "onBlur",
  });
  const name = record.title ? `${record.label} — ${record.title}` : record.label;
  return (
    <section className="card" aria-labelledby="circulate-title">
      <h2 id="circulate-title">Circulate for acknowledgement</h2>
      <p>
        <Link to={record.href}>{name}</Link>
      </p>
      <p className="muted">
        Everyone assigned to the vessels you tick (only the ranks you tick, if any) and everyone in the departments you
        tick is asked to read it and confirm &quot;read and understood&quot; by the due date. Anyone who joins one of
        the vessels later, while the circulation is open, is asked too.
      </p>
      <Form method="post" {...getFormProps(form)} className="stack">
        <input type="hidden" name={fields.record.name} value={`${record.kind}:${record._id}`} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <ErrorList errors={fields.record.errors} />
        {vessels.length ? (
          <Checkboxes
            {...group(fields.vessels)}
            legend="Vessels"
            options={vessels.map((v) => ({ value: v._id, label: v.name }))}
          />
        ) : (
          <p className="muted">No active vessel is in the register.</p>
        )}
        {ranks.length ? (
          <Checkboxes
            {...group(fields.ranks)}
            legend="Only these ranks on board (none ticked: every rank)"
            options={ranks.map((r) => ({ value: r, label: r }))}
          />
        ) : null}
        <Checkboxes {...group(fields.departments)} legend="Office departments" options={departments} />
        <div className="field">
          <label htmlFor={fields.due.id}>Due date</label>
          <input
            {...getInputProps(fields.due, { type: "date" })}
            key={fields.due.key}
            aria-describedby={fields.due.errors ? fields.due.errorId : undefined}
          />
          <ErrorList id={fields.due.errorId} errors={fields.due.errors} />
        </div>
        <div className="field">
          <label htmlFor={fields.note.id}>What changed (the note people read first)</label>
          <textarea
            {...getTextareaProps(fields.note)}
            key={fields.note.key}
            rows={5}
            maxLength={CIRCULATION_TEXT_MAX}
            aria-describedby={`${fields.note.id}-hint${fields.note.errors ? ` ${fields.note.errorId}` : ""}`}
          />
          <p id={`${fields.note.id}-hint`} className="hint">
            Plain text, up to {CIRCULATION_TEXT_MAX.toLocaleString("en")} characters. It is in the email each person
            gets.
          </p>
          <ErrorList id={fields.note.errorId} errors={fields.note.errors} />
        </div>
        <div className="form-actions">
          <SubmitButton pendingText="Circulating…">Circulate</SubmitButton>
          <Link to={record.href} className="button">
            Back to {record.label}
          </Link>
        </div>
      </Form>
    </section>
  );
}
