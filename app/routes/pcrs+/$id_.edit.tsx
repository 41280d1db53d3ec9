import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { SubmitButton } from "~/components/submit";
import { PcrForm } from "~/components/pcr-form";
import { canEditPcr } from "~/models/authz/authz.server";
import { pcrPageSchema, toPcrInput } from "~/models/pcr/pcr.schema";
import { SIGNED_PCR_FROZEN, updatePcr } from "~/models/pcr/pcr.server";
import { Forbidden } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";
import { requirePcrForPage } from "~/web/pcr-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Edit PCR ${data.pcr.serial_num} · Change Management` : "Edit PCR · Change Management" },
];

async function loadEditable(request: Request, id: string | undefined) {
  const { user, pcr, access: rules } = await requirePcrForPage(request, id);
  if (!canEditPcr(user, rules))
    pageError(new Forbidden("Only the originator (while the PCR is pending) or an admin can edit it."));
  if (pcr.status !== "pending")
    throw await redirectWithFlash(`/pcrs/${pcr._id}`, {
      kind: "info",
      message: "A finished PCR can no longer change.",
    });
  return { user, pcr, frozen: pcr.signatures.some((s) => typeof s.Signature === "string") };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, pcr, frozen } = await loadEditable(request, params.id);
  return {
    pcr,
    frozen: frozen ? SIGNED_PCR_FROZEN : null,
    users: frozen ? [] : (await activeUserOptions()).filter((u) => u._id !== user._id),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, pcr } = await loadEditable(request, params.id);
  const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema: pcrPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => updatePcr(user, pcr._id, toPcrInput(submission.value)));
  if (!result.ok)
    return domainErrorReply(submission, result.error, (p) =>
      p.startsWith("affectedParties") ? "parties" : p.replace(/^form\./, ""),
    );
  return redirectWithFlash(`/pcrs/${pcr._id}`, { kind: "success", message: "The PCR is saved." });
}

export default function EditPcr() {
  const { pcr, users, frozen } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  if (frozen) {
    return (
      <>
        <p>
          <Link to={`/pcrs/${pcr._id}`}>← PCR {pcr.serial_num}</Link>
        </p>
        <h1>Edit PCR {pcr.serial_num}</h1>
        <div className="callout callout-danger" role="alert">
          <p>{frozen}.</p>
          <p>Its form and affected parties are frozen since the first signature, so every signature stays valid.</p>
        </div>
        <Form method="post" action={`/pcrs/${pcr._id}`}>
          <SubmitButton name="intent" value="clone" className="button button-primary" pendingText="Cloning…">
            Clone into a new PCR
          </SubmitButton>
        </Form>
      </>
    );
  }
  return (
    <>
      <p>
        <Link to={`/pcrs/${pcr._id}`}>← PCR {pcr.serial_num}</Link>
      </p>
      <h1>Edit PCR {pcr.serial_num}</h1>
      <PcrForm
        users={users}
        lastResult={lastResult}
        submitLabel="Save PCR"
        defaultValue={{
          ...pcr.form,
          "new-suggestion": pcr.form["new-suggestion"] ? "on" : undefined,
          "procedure-change": pcr.form["procedure-change"] ? "on" : undefined,
          "safety-critical": pcr.form["safety-critical"] ? "on" : undefined,
          parties: pcr.affectedParties.map((p) => p.Name.value),
        }}
      />
    </>
  );
}
