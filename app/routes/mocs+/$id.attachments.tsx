import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { AttachmentList, AttachmentUpload } from "~/components/attachments";
import { canAttachToMoc } from "~/models/authz/authz.server";
import { attachmentsPageAction, attachmentsPageData } from "~/web/attachments-page.server";
import { requireMocForPage } from "~/web/moc-page.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc } = await requireMocForPage(request, params.id);
  return { mocId: doc._id, ...(await attachmentsPageData({ mocId: doc._id }, canAttachToMoc(user, access))) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireMocForPage(request, params.id);
  return attachmentsPageAction(request, user, { mocId: doc._id }, `/mocs/${doc._id}/attachments`);
}

export default function MocAttachments() {
  const { mocId, files, canWrite, types } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const error = result && "error" in result ? result.error : null;
  return (
    <section className="card" aria-labelledby="attachments-title">
      <h2 id="attachments-title">Attachments</h2>
      <AttachmentList files={files} canWrite={canWrite} />
      {canWrite ? <AttachmentUpload types={types} error={error} record={`moc:${mocId}`} /> : null}
      <p>
        <Link to={`/mocs/${mocId}`}>Back to the MOC</Link>
      </p>
    </section>
  );
}
