import { useActionData, useLoaderData } from "@remix-run/react";
import { RowsEditor } from "~/components/rows-editor";
import { manualPlanPageSchema } from "~/models/moc/moc.schema";
import { setManualPlan } from "~/models/moc/moc.server";
import { planPage } from "~/web/moc-plan-page.server";

const page = planPage({
  plan: "manuals",
  schema: manualPlanPageSchema,
  save: (user, mocId, value) => setManualPlan(user, mocId, value),
  success: "The manuals and drawings plan is saved.",
});
export const loader = page.loader;
export const action = page.action;

export default function ManualPlanEditor() {
  const { users, moc, mode, markable } = useLoaderData<typeof loader>();
  const items = moc.manual_plan?.items ?? [];
  return (
    <section aria-labelledby="manual-editor-title">
      <h2 id="manual-editor-title">Manuals and drawings plan</h2>
      {mode === "mark" ? (
        <p className="muted" id="frozen-plan-note">
          This MOC is approved: the items themselves change only through a deviation. Tick the items that are done and
          save.
        </p>
      ) : null}
      <RowsEditor
        id="manual-editor"
        schema={() => import("~/models/moc/moc.schema").then((m) => m.manualPlanPageSchema)}
        noun="document"
        mocId={moc._id}
        users={users}
        frozen={mode === "mark" ? { markable } : undefined}
        lastResult={useActionData<typeof action>()}
        defaultItems={items.map((i) => ({ ...i, done: i.done ? "on" : undefined }))}
        columns={[
          { key: "document", label: "Manual or drawing", kind: "text" },
          { key: "change", label: "Change", kind: "text" },
          { key: "owner", label: "Owner", kind: "owner" },
          { key: "due", label: "Due", kind: "date" },
          { key: "done", label: "Done", kind: "done" },
        ]}
      />
    </section>
  );
}
