import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { AttachmentList, AttachmentUpload } from "~/components/attachments";
import { SIGNED_PCR_FILES_FROZEN } from "~/models/pcr/pcr-files.server";
import { canAttachToPcr } from "~/models/authz/authz.server";
import { attachmentsPageAction, attachmentsPageData } from "~/web/attachments-page.server";
import { requirePcrForPage } from "~/web/pcr-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `PCR ${data.serial} attachments · Change Management` : "PCR · Change Management" },
];

async function loadPcr(request: Request, id: string | undefined) {
  const { user, pcr, access } = await requirePcrForPage(request, id);
  // Signed, its files are frozen with its form (app/models/records/attachments.server.ts refuses with 409).
  const frozen = pcr.signatures.some((s) => typeof s.Signature === "string");
  return { user, pcr, frozen, canWrite: canAttachToPcr(user, access) && !frozen };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { pcr, frozen, canWrite } = await loadPcr(request, params.id);
  return {
    pcrId: pcr._id,
    serial: pcr.serial_num,
    frozen: frozen ? SIGNED_PCR_FILES_FROZEN : null,
    ...(await attachmentsPageData({ pcrId: pcr._id }, canWrite)),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, pcr } = await loadPcr(request, params.id);
  return attachmentsPageAction(request, user, { pcrId: pcr._id }, `/pcrs/${pcr._id}/attachments`);
}

export default function PcrAttachments() {
  const { pcrId, serial, frozen, files, canWrite, types } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const error = result && "error" in result ? result.error : null;
  return (
    <>
      <p className="no-print">
        <Link to={`/pcrs/${pcrId}`}>← PCR {serial}</Link>
      </p>
      <h1>PCR {serial}: attachments</h1>
      <section className="card" aria-labelledby="attachments-title">
        <h2 id="attachments-title">Files</h2>
        <AttachmentList files={files} canWrite={canWrite} />
        {frozen ? <p className="hint">{frozen}</p> : null}
        {canWrite ? <AttachmentUpload types={types} error={error} record={`pcr:${pcrId}`} /> : null}
      </section>
    </>
  );
}
