import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList, SubmitButton } from "~/components/forms";
import { setRiskAssessment } from "~/models/moc.server";
import { MAX_UPLOAD_BYTES, storeMocAttachment, UPLOAD_TYPES } from "~/models/uploads.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { requirePlanEditor } from "~/web/moc-plan-page.server";
import { pageError, runForPage } from "~/utils/page.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { doc } = await requirePlanEditor(request, params.id);
  return { mocId: doc._id, current: (doc.risk_assessment as string | null) ?? null, types: Object.keys(UPLOAD_TYPES) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requirePlanEditor(request, params.id);
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES + 64 * 1024) {
    return data({ error: "Files can be at most 10 MB" }, { status: 413 });
  }
  const form = await request.formData().catch(() => null);
  const file = form?.get("file");
  if (!(file instanceof File) || file.size === 0) return data({ error: "Choose the file to attach" }, { status: 400 });
  const result = await runForPage(async () =>
    setRiskAssessment(user, doc._id, await storeMocAttachment(doc._id, file)),
  );
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return data({ error: result.error.issues?.[0]?.message ?? result.error.message }, { status: result.error.status });
  }
  return redirectWithFlash(`/mocs/${doc._id}`, { kind: "success", message: "The risk assessment is attached." });
}

export default function RiskUpload() {
  const { mocId, current, types } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <section className="card" aria-labelledby="risk-title">
      <h2 id="risk-title">Risk assessment</h2>
      {current ? (
        <p>
          Attached now: <a href={current}>the current risk assessment</a>. A new file replaces it.
        </p>
      ) : null}
      <Form method="post" encType="multipart/form-data" className="stack">
        <div className="field">
          <label htmlFor="risk-file">File</label>
          <input
            id="risk-file"
            name="file"
            type="file"
            accept={types.map((t) => `.${t}`).join(",")}
            aria-describedby="risk-hint risk-error"
            aria-invalid={result?.error ? true : undefined}
          />
          <p id="risk-hint" className="hint">
            {types.join(", ").toUpperCase()} — at most 10 MB.
          </p>
          <ErrorList id="risk-error" errors={result?.error ? [result.error] : null} />
        </div>
        <div className="form-actions">
          <SubmitButton pendingText="Uploading…">Attach</SubmitButton>
          <Link to={`/mocs/${mocId}`} className="button">
            Cancel
          </Link>
        </div>
      </Form>
    </section>
  );
}
