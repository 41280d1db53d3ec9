import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, SubmitButton } from "~/components/submit";
import { storeAttachment, UPLOAD_TYPES } from "~/models/records/attachments.server";
import { receiveUpload } from "~/web/attachment-upload.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { requirePlanEditor } from "~/web/moc-plan-page.server";
import { pageError } from "~/utils/page.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { doc } = await requirePlanEditor(request, params.id, "risk");
  return { mocId: doc._id, current: (doc.risk_assessment as string | null) ?? null, types: Object.keys(UPLOAD_TYPES) };
}

/** The file is spooled as it arrives, then stored in one transaction (app/web/attachment-upload.server.ts). */
export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requirePlanEditor(request, params.id, "risk");
  const result = await receiveUpload(request, user, (file) =>
    storeAttachment(user, { mocId: doc._id }, "risk_assessment", file),
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
          Attached now: <a href={current}>the current risk assessment</a>. A new file becomes the current one; the
          earlier one stays in the attachment list.
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
