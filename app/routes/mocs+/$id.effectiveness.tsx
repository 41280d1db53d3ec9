import { getFormProps, useForm } from "@conform-to/react";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { TextField } from "~/components/fields";
import { ErrorList, MocFormActions } from "~/components/submit";
import { formatDate } from "~/components/moc";
import { EffectivenessPanel } from "~/components/effectiveness";
import {
  EFFECTIVENESS_RESULT_WORDS,
  EFFECTIVENESS_RESULTS,
  reviewStateWords,
} from "~/models/moc/effectiveness.constants";
import { effectivenessAction, effectivenessLoader } from "~/web/effectiveness-page.server";

export const loader = effectivenessLoader;
export const action = effectivenessAction;

/** A closed MOC's effectiveness review, answered once (issue 42, docs/decisions/058-effectiveness-review.md). */
export default function EffectivenessReviewPage() {
  const { mocId, review, today } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({ id: "effectiveness-review", lastResult: useActionData<typeof action>() });
  const result = fields.result!;
  // Answered: the review as the MOC page shows it, with the follow-up when it found the change wanting.
  if (review?.result) {
    return (
      <>
        <EffectivenessPanel mocId={mocId} review={review} today={today} canAnswer={false} />
        <p>
          <Link to={`/mocs/${mocId}`}>Back to the MOC</Link>
        </p>
      </>
    );
  }
  return (
    <section className="card" aria-labelledby="effectiveness-title">
      <h2 id="effectiveness-title">Effectiveness review</h2>
      {!review ? (
        <p className="callout">
          This MOC has no effectiveness review: the verification that closes a MOC sets its date.
        </p>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <p>
            Due {formatDate(review.due_on)} ({reviewStateWords(review, today).toLowerCase()}). Check whether the change
            worked as intended; a change partly or not effective needs a comment, and can be followed up by a new MOC.
          </p>
          <ErrorList id={form.errorId} errors={form.errors} />
          <fieldset
            className="field"
            aria-invalid={result.errors?.length ? true : undefined}
            aria-describedby={result.errors?.length ? result.errorId : undefined}
          >
            <legend>Was the change effective?</legend>
            <div className="choice-row">
              {EFFECTIVENESS_RESULTS.map((value) => (
                <label key={value}>
                  <input
                    type="radio"
                    name={result.name}
                    value={value}
                    defaultChecked={result.initialValue === value}
                    key={result.key}
                  />
                  {EFFECTIVENESS_RESULT_WORDS[value]}
                </label>
              ))}
            </div>
            <ErrorList id={result.errorId} errors={result.errors} />
          </fieldset>
          <TextField
            meta={fields.comment}
            label="Comment"
            hint="What was found; required when the change was partly or not effective."
            multiline
            direct
          />
          <MocFormActions mocId={mocId} pendingText="Saving…">
            Answer the review
          </MocFormActions>
        </Form>
      )}
    </section>
  );
}
