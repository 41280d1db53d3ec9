import { getFormProps, getInputProps, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import { Link } from "@remix-run/react";
import { Form } from "~/components/form";
import { REVIEW_ACTION_STATUSES } from "#db/schema/enums";
import { REVIEW_ACTION_LABELS } from "~/models/review/review.constants";
import type { reviewPageSchema } from "~/models/review/review.schema";
import { useSchemaForm, type FormShape } from "~/components/schema-form";
import { CheckboxGroupField, RichTextField, type UserOption } from "./fields";
import { DefaultSubmit, ErrorList, Field, SelectField, SubmitButton } from "./forms";
import { departmentLabel } from "./moc";

type ReviewDefaults = DefaultValue<FormShape<typeof reviewPageSchema>>;

/**
 * The review form, new and edit. Sections and actions are repeatable: "Add" and "Remove" are
 * submit buttons carrying conform's list intents, so they work without JavaScript (the server
 * answers with the changed form, unsaved) and at once with it.
 */
export function ReviewForm({
  users,
  lastResult,
  defaultValue,
  submitLabel,
  cancelTo,
  editing = false,
}: {
  users: UserOption[];
  lastResult: SubmissionResult<string[]> | null | undefined;
  defaultValue: ReviewDefaults;
  submitLabel: string;
  cancelTo: string;
  editing?: boolean;
}) {
  const [form, fields] = useSchemaForm({
    id: "review-form",
    schema: () => import("~/models/review/review.schema").then((m) => m.reviewPageSchema),
    lastResult,
    defaultValue,
  });
  const sections = fields.sections.getFieldList();
  const actions = fields.actions.getFieldList();
  const people = users.map((u) => ({ value: u._id, label: `${u.name} (${departmentLabel(u.department)})` }));
  const statuses = REVIEW_ACTION_STATUSES.map((s) => ({ value: s, label: REVIEW_ACTION_LABELS[s] }));
  return (
    <Form method="post" {...getFormProps(form)} className="review-form">
      <DefaultSubmit>{submitLabel}</DefaultSubmit>
      <ErrorList id={form.errorId} errors={form.errors} />
      <section className="card" aria-labelledby="review-basics">
        <h2 id="review-basics">The review</h2>
        <div className="form-grid">
          <Field meta={fields.year} label="Year" type="number" required hint="The calendar year reviewed (UTC)" />
          <Field meta={fields.title} label="Title" required />
        </div>
        {editing ? (
          <label className="checkbox review-recount">
            <input {...getInputProps(fields.recount, { type: "checkbox" })} key={fields.recount.key} />
            Count the year&apos;s MOCs again for the summary (otherwise it stays as it is, unless the year changes)
          </label>
        ) : (
          <p className="hint">The MOC summary is counted from the year&apos;s MOCs when you save.</p>
        )}
        <CheckboxGroupField meta={fields.participants} direct label="Participants" options={people} />
      </section>

      <section className="card" aria-labelledby="review-sections">
        <h2 id="review-sections">Sections</h2>
        <ErrorList id={fields.sections.errorId} errors={fields.sections.errors} />
        {sections.length === 0 ? <p className="empty">No sections yet.</p> : null}
        <div className="review-rows">
          {sections.map((section, index) => {
            const parts = section.getFieldset();
            return (
              <fieldset key={section.key} className="review-row">
                <legend>Section {index + 1}</legend>
                <ErrorList id={section.errorId} errors={section.errors} />
                <Field meta={parts.heading} label="Heading" required />
                <RichTextField meta={parts.body} direct label="Text" />
                <div className="review-row-actions">
                  <button
                    className="button button-small"
                    {...form.remove.getButtonProps({ name: fields.sections.name, index })}
                    aria-label={`Remove section ${index + 1}`}
                  >
                    Remove
                  </button>
                </div>
              </fieldset>
            );
          })}
        </div>
        <div className="form-actions">
          <button className="button" {...form.insert.getButtonProps({ name: fields.sections.name })}>
            Add a section
          </button>
        </div>
      </section>

      <section className="card" aria-labelledby="review-assessment">
        <h2 id="review-assessment">Assessment</h2>
        <div className="stack">
          <RichTextField meta={fields.effectiveness} direct label="Effectiveness of the MOC process" />
          <RichTextField meta={fields.improvements} direct label="Improvements" />
          <RichTextField meta={fields.issues} direct label="Issues" />
        </div>
      </section>

      <section className="card" aria-labelledby="review-actions">
        <h2 id="review-actions">Follow-up actions</h2>
        <ErrorList id={fields.actions.errorId} errors={fields.actions.errors} />
        {actions.length === 0 ? <p className="empty">No actions yet.</p> : null}
        <div className="review-rows">
          {actions.map((action, index) => {
            const parts = action.getFieldset();
            return (
              <fieldset key={action.key} className="review-row">
                <legend>Action {index + 1}</legend>
                <ErrorList id={action.errorId} errors={action.errors} />
                <div className="review-action-grid">
                  <Field meta={parts.description} label="Description" required />
                  <SelectField
                    meta={parts.owner}
                    label="Owner"
                    required
                    placeholder="Choose a person"
                    options={people}
                  />
                  <Field meta={parts.due} label="Due date" type="date" required />
                  <SelectField meta={parts.status} label="Status" options={statuses} />
                </div>
                <div className="review-row-actions">
                  <button
                    className="button button-small"
                    {...form.remove.getButtonProps({ name: fields.actions.name, index })}
                    aria-label={`Remove action ${index + 1}`}
                  >
                    Remove
                  </button>
                </div>
              </fieldset>
            );
          })}
        </div>
        <div className="form-actions">
          <button className="button" {...form.insert.getButtonProps({ name: fields.actions.name })}>
            Add an action
          </button>
        </div>
      </section>

      <div className="form-actions">
        <SubmitButton pendingText="Saving…">{submitLabel}</SubmitButton>
        <Link to={cancelTo} className="button">
          Cancel
        </Link>
      </div>
    </Form>
  );
}
