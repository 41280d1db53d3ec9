import { useActionData, useLoaderData } from "@remix-run/react";
import { RowsEditor } from "~/components/rows-editor";
import { actionPlanPageSchema } from "~/models/moc/moc.schema";
import { setActionPlan } from "~/models/moc/moc.server";
import { planPage } from "~/web/moc-plan-page.server";

const page = planPage({
  plan: "action",
  schema: actionPlanPageSchema,
  save: (user, mocId, value) => setActionPlan(user, mocId, value),
  success: "The action plan is saved.",
});
export const loader = page.loader;
export const action = page.action;

export default function ActionPlanEditor() {
  const { users, moc, mode, markable } = useLoaderData<typeof loader>();
  const items = moc.action?.items ?? [];
  return (
    <section aria-labelledby="action-editor-title">
      <h2 id="action-editor-title">Action plan</h2>
      {mode === "mark" ? (
        <p className="muted" id="frozen-plan-note">
          This MOC is approved: the items themselves change only through a deviation. Tick the items that are done and
          save.
        </p>
      ) : null}
      <RowsEditor
        id="action-editor"
        schema={() => import("~/models/moc/moc.schema").then((m) => m.actionPlanPageSchema)}
        noun="action"
        mocId={moc._id}
        users={users}
        frozen={mode === "mark" ? { markable } : undefined}
        lastResult={useActionData<typeof action>()}
        defaultItems={items.map((i) => ({ ...i, done: i.done ? "on" : undefined }))}
        columns={[
          { key: "description", label: "Action", kind: "text" },
          { key: "owner", label: "Owner", kind: "owner" },
          { key: "due", label: "Due", kind: "date" },
          { key: "done", label: "Done", kind: "done" },
        ]}
      />
    </section>
  );
}
