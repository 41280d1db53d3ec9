/**
 * /admin/risk: the risk matrix's thresholds and the positions whose holders give the second
 * approvals of High and Extreme MOCs (docs/decisions/037-risk-ranking-and-approvals.md). Admins
 * only; each change is in the audit trail, shown below the form.
 */
import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { POSITIONS } from "#db/schema/enums";
import { ErrorList, Field, SelectField, SubmitButton } from "~/components/forms";
import { useSchemaForm } from "~/components/schema-form";
import { RiskMatrix } from "~/components/risk";
import { historyOf } from "~/models/audit/audit.server";
import { riskSettingsFormSchema } from "~/models/risk/risk.schema";
import { getRiskSettings, RISK_SETTINGS_RECORD, setRiskSettings } from "~/models/moc/risk-settings.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { fieldErrors, runForPage } from "~/utils/page.server";
import { requireAdmin } from "~/web/auth.server";

export const meta: MetaFunction = () => [{ title: "Risk matrix · Administration · Change Management" }];

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can change the risk matrix.";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request, REFUSAL);
  const [settings, history] = await Promise.all([getRiskSettings(), historyOf("settings", RISK_SETTINGS_RECORD)]);
  return { settings, history: history.slice(-10).reverse() };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireAdmin(request, REFUSAL);
  const submission = parseWithZod(await request.formData(), { schema: riskSettingsFormSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => setRiskSettings(user, submission.value));
  if (!result.ok) {
    const errors = fieldErrors(result.error);
    return data(
      submission.reply({
        fieldErrors: errors,
        formErrors: Object.keys(errors).length ? undefined : [result.error.message],
      }),
      { status: result.error.status },
    );
  }
  return redirectWithFlash("/admin/risk", { kind: "success", message: "The risk matrix is saved." });
}

const positionOptions = POSITIONS.map((p) => ({ value: p, label: p }));

export default function RiskSettingsPage() {
  const { settings, history } = useLoaderData<typeof loader>();
  const [form, fields] = useSchemaForm({
    id: "risk-settings",
    schema: () => import("~/models/risk/risk.schema").then((m) => m.riskSettingsFormSchema),
    lastResult: useActionData<typeof action>(),
    defaultValue: {
      lowMax: String(settings.lowMax),
      mediumMax: String(settings.mediumMax),
      highMax: String(settings.highMax),
      highPosition: settings.highPosition,
      extremePosition: settings.extremePosition,
      rankingRequired: settings.rankingRequired ? "on" : undefined,
    },
    shouldValidate: "onBlur",
  });
  return (
    <>
      <p>
        <Link to="/admin">← Administration</Link>
      </p>
      <h1>Risk matrix</h1>
      <p className="muted">
        Each impact-assessment item is ranked for likelihood and severity (1-5) before and after its controls; the score
        is their product. A MOC&apos;s risk is the highest residual level of its items. High needs a second approval
        after the approver&apos;s; Extreme needs that and a third. Changing the thresholds re-ranks the MOCs not yet
        approved; a MOC already approved keeps the level it was approved at, and one re-ranked after its HSEQ review
        goes back to HSEQ review.
      </p>
      <RiskMatrix t={settings} />
      <section className="card" aria-labelledby="risk-settings-title">
        <h2 id="risk-settings-title">Thresholds and approvers</h2>
        <Form method="post" {...getFormProps(form)}>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="risk-ranks">
            <Field meta={fields.lowMax} label="Low: scores up to" type="number" required />
            <Field meta={fields.mediumMax} label="Medium: scores up to" type="number" required />
            <Field
              meta={fields.highMax}
              label="High: scores up to"
              type="number"
              required
              hint="Scores above it are Extreme (up to 25)."
            />
          </div>
          <SelectField
            meta={fields.highPosition}
            label="Second approval of High and Extreme risk, by the holder of"
            options={positionOptions}
            required
          />
          <SelectField
            meta={fields.extremePosition}
            label="Third approval of Extreme risk, by the holder of"
            options={positionOptions}
            required
          />
          <div className="field">
            <label>
              <input
                type="checkbox"
                name={fields.rankingRequired.name}
                defaultChecked={settings.rankingRequired}
                aria-describedby="ranking-required-hint"
              />{" "}
              Ranking required before HSEQ review
            </label>
            <p className="hint" id="ranking-required-hint">
              When on, HSEQ can answer &ldquo;the risk assessment covers the change&rdquo; only for a MOC whose impact
              items are all ranked before and after their controls (or whose implementer declared no significant
              hazard), and for a High or Extreme MOC only with its risk assessment file attached. Turn it off only for
              clients that follow the original process.
            </p>
          </div>
          <div className="form-actions">
            <SubmitButton pendingText="Saving…">Save</SubmitButton>
          </div>
        </Form>
      </section>
      <section className="card" aria-labelledby="risk-history-title">
        <h2 id="risk-history-title">Changes</h2>
        {history.length === 0 ? (
          <p className="empty">The defaults have not been changed.</p>
        ) : (
          <ul>
            {history.map((h) => (
              <li key={h.seq}>
                <time dateTime={h.at}>{h.at.slice(0, 16).replace("T", " ")} UTC</time>, {h.actorName ?? "—"}: {h.to}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
