import { getFormProps, useForm } from "@conform-to/react";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { TextField } from "~/components/fields";
import { ErrorList, MocFormActions } from "~/components/submit";
import { formatDate } from "~/components/moc";
import { cancelItemAction, cancelItemLoader } from "~/web/cancel-item-page.server";

export const loader = cancelItemLoader;
export const action = cancelItemAction;

/** Cancel one action-plan or manuals-plan item with a reason (docs/decisions/033-closure-gates.md). */
export default function CancelPlanItem() {
  const { mocId, item } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({ id: "cancel-item", lastResult: useActionData<typeof action>() });
  const settled = item.done ? "This item is already done." : item.cancelled ? "This item is already cancelled." : null;
  return (
    <section className="card" aria-labelledby="cancel-item-title">
      <h2 id="cancel-item-title">Cancel a plan item</h2>
      <p style={{ overflowWrap: "anywhere" }}>
        {item.words}
        {item.due ? ` (due ${formatDate(item.due)})` : ""}
      </p>
      {settled ? (
        <p className="callout">{settled}</p>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <p className="muted">
            A cancelled item no longer holds up closing the MOC. Who cancelled it, when and why go in the history.
          </p>
          <ErrorList id={form.errorId} errors={form.errors} />
          <input type="hidden" name="plan" value={item.plan} />
          <input type="hidden" name="item_id" value={item.itemId} />
          <TextField meta={fields.reason} label="Why it will not be done" multiline direct />
          <MocFormActions mocId={mocId} pendingText="Cancelling…">
            Cancel the item
          </MocFormActions>
        </Form>
      )}
    </section>
  );
}
