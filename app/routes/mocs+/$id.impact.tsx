import { useActionData, useLoaderData } from "@remix-run/react";
import { RowsEditor } from "~/components/rows-editor";
import { impactPageSchema } from "~/models/moc.schema";
import { setImpactAssessment } from "~/models/moc.server";
import { planPage } from "~/web/moc-plan-page.server";

const page = planPage({
  plan: "impact",
  schema: impactPageSchema,
  save: (user, mocId, value) => setImpactAssessment(user, mocId, value.items),
  success: "The impact assessment is saved.",
});
export const loader = page.loader;
export const action = page.action;

export default function ImpactEditor() {
  const { users, moc } = useLoaderData<typeof loader>();
  const items = moc.impact_assessment ?? [];
  return (
    <section aria-labelledby="impact-editor-title">
      <h2 id="impact-editor-title">Impact assessment</h2>
      <p className="muted">
        One category per row (for example Safety, Environment, Operations); list its hazards one per line.
      </p>
      <p className="muted" id="impact-ranks-help">
        Rank each row 1 (rare, negligible) to 5 (almost certain, catastrophic): likelihood and severity before the
        controls, then again after them (residual). The MOC&apos;s risk is its highest residual level; a High or Extreme
        risk needs further approvals after the approver&apos;s.
      </p>
      <RowsEditor
        id="impact-editor"
        schema={() => import("~/models/moc.schema").then((m) => m.impactPageSchema)}
        noun="category"
        stackOnPhone
        plural="categories"
        mocId={moc._id}
        users={users}
        lastResult={useActionData<typeof action>()}
        defaultItems={items.map((i) => ({
          category: i.category,
          hazards: i.hazards.join("\n"),
          likelihood: i.likelihood ?? "",
          severity: i.severity ?? "",
          controls: i.controls ?? "",
          residualLikelihood: i.residualLikelihood ?? "",
          residualSeverity: i.residualSeverity ?? "",
        }))}
        columns={[
          { key: "category", label: "Category", kind: "text" },
          { key: "hazards", label: "Hazards (one per line)", kind: "lines" },
          { key: "likelihood", label: "Likelihood", kind: "rank" },
          { key: "severity", label: "Severity", kind: "rank" },
          { key: "controls", label: "Controls", kind: "lines" },
          { key: "residualLikelihood", label: "Residual likelihood", kind: "rank" },
          { key: "residualSeverity", label: "Residual severity", kind: "rank" },
        ]}
      />
    </section>
  );
}
