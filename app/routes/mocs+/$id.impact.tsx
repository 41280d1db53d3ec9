import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField } from "~/components/fields";
import { Form } from "~/components/form";
import { RowsEditor } from "~/components/rows-editor";
import { ErrorList, SubmitButton } from "~/components/submit";
import { impactPageSchema, noHazardPageSchema } from "~/models/moc/moc.schema";
import { setImpactAssessment } from "~/models/moc/moc.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { planPage, requirePlanEditor } from "~/web/moc-plan-page.server";

const page = planPage({
  plan: "impact",
  schema: impactPageSchema,
  save: (user, mocId, value) => setImpactAssessment(user, mocId, value.items),
  success: "The impact assessment is saved.",
});
export const loader = page.loader;

/**
 * The impact editor's save, or (intent "declare" / "withdraw") the implementer's "no significant
 * hazard" declaration, which ranks a MOC without impact items Low (issue 38's risk gate).
 */
export async function action(args: ActionFunctionArgs) {
  const intent = (await args.request.clone().formData()).get("intent");
  if (intent !== "declare" && intent !== "withdraw") return page.action(args);
  const { user, doc } = await requirePlanEditor(args.request, args.params.id);
  const submission = parseWithZod(await args.request.formData(), { schema: noHazardPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  const reason = value.intent === "declare" ? value.reason : null;
  const result = await runForPage(() => setImpactAssessment(user, doc._id, doc.impact_assessment, reason));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error, (path) => (path === "no_significant_hazard" ? "reason" : path));
  }
  return redirectWithFlash(`/mocs/${doc._id}`, {
    kind: "success",
    message: reason ? "Declared: no significant hazard (ranked Low)." : "The declaration is withdrawn.",
  });
}

export default function ImpactEditor() {
  const { users, moc, userId } = useLoaderData<typeof loader>();
  const items = moc.impact_assessment ?? [];
  const isImplementer = moc.implementer_id?._id === userId;
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
      {moc.originator_form?.["hazards-seen"]?.value ? (
        <div className="callout">
          <h3>Hazards seen when the change was raised (Part A)</h3>
          <p className="break-anywhere pre-wrap">{moc.originator_form["hazards-seen"].value}</p>
        </div>
      ) : null}
      <RowsEditor
        id="impact-editor"
        schema={() => import("~/models/moc/moc.schema").then((m) => m.impactPageSchema)}
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
      {items.length === 0 && (isImplementer || moc.no_significant_hazard) ? (
        <NoHazardDeclaration declared={moc.no_significant_hazard ?? null} mayDeclare={isImplementer} />
      ) : null}
    </section>
  );
}

/**
 * A change with nothing to rank: the implementer says so, with the reason, instead of an impact
 * item (the MOC is then ranked Low and may pass the risk gate).
 */
function NoHazardDeclaration({
  declared,
  mayDeclare,
}: {
  declared: { reason: string; byName: string; at: string } | null;
  mayDeclare: boolean;
}) {
  const [form, fields] = useForm({ id: "no-hazard", lastResult: useActionData<typeof action>() });
  return (
    <section className="card" aria-labelledby="no-hazard-title">
      <h3 id="no-hazard-title">No significant hazard</h3>
      {declared ? (
        <p>
          Declared by {declared.byName} on {declared.at.slice(0, 10)}: <q>{declared.reason}</q>. The MOC is ranked Low.
        </p>
      ) : (
        <p className="muted">
          When the change has no hazard worth an impact item, declare it here with your reason: the MOC is then ranked
          Low. Adding an impact item replaces the declaration.
        </p>
      )}
      {mayDeclare ? (
        <Form method="post" {...getFormProps(form)}>
          <ErrorList id={form.errorId} errors={form.errors} />
          {declared ? (
            <>
              <input type="hidden" name="intent" value="withdraw" />
              <div className="form-actions">
                <SubmitButton pendingText="Withdrawing…">Withdraw the declaration</SubmitButton>
              </div>
            </>
          ) : (
            <>
              <input type="hidden" name="intent" value="declare" />
              <TextField meta={fields.reason} label="Why the change has no significant hazard" multiline direct />
              <div className="form-actions">
                <SubmitButton pendingText="Declaring…">Declare no significant hazard</SubmitButton>
              </div>
            </>
          )}
        </Form>
      ) : null}
    </section>
  );
}
