import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { SelectValueField, TextField } from "~/components/fields";
import { ErrorList, MocFormActions } from "~/components/submit";
import { scopeOptions } from "~/components/part-a";
import { canManageMoc } from "~/models/authz/authz.server";
import { completeMocContext, mocContextPageSchema } from "~/models/moc/moc-context.server";
import { titleOf } from "~/models/moc/moc-names";
import { listVessels } from "~/models/fleet/vessel.server";
import { Forbidden } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { requireMocForPage } from "~/web/moc-page.server";

/**
 * A MOC raised without a title or scope (over /api, or before Part A asked them): its originator or
 * an admin records what is missing (docs/decisions/036-vessels-and-crew-access.md).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, access, doc } = await requireMocForPage(request, params.id);
  if (!canManageMoc(user, access)) pageError(new Forbidden("Only the originator or an admin can record these"));
  const vessels = await listVessels({ activeOnly: true });
  return {
    mocId: doc._id,
    needsTitle: !titleOf(doc.originator_form),
    needsVessel: !doc.originator_form?.vessel?.value,
    vessels: vessels.map((v) => ({ _id: v._id, name: v.name })),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, access } = await requireMocForPage(request, params.id);
  const submission = parseWithZod(await request.formData(), { schema: mocContextPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const { title, vessel } = submission.value;
  if (!title && !vessel) {
    return data(submission.reply({ formErrors: ["Give the title, the vessel or both"] }), { status: 400 });
  }
  const result = await runForPage(() => completeMocContext(user, { moc_id: access.id, title, vessel }));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(`/mocs/${access.id}`, { kind: "success", message: "Recorded." });
}

export default function RecordContext() {
  const { mocId, needsTitle, needsVessel, vessels } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({ id: "moc-context", lastResult: useActionData<typeof action>() });
  return (
    <section className="card" aria-labelledby="context-title">
      <h2 id="context-title">Record the title and vessel</h2>
      {!needsTitle && !needsVessel ? (
        <p className="callout">This MOC records both; they change through Part A.</p>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <p className="muted">
            This MOC was raised before its title and vessel were asked for. Recording them puts it in the vessel&apos;s
            lists and lets people recognise it; the history shows who recorded them.
          </p>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="stack">
            {needsTitle ? <TextField meta={fields.title} label="Title" hint="3 to 120 characters." /> : null}
            {needsVessel ? (
              <SelectValueField
                meta={fields.vessel}
                label="Vessel or scope"
                options={scopeOptions(vessels)}
                placeholder="Choose a vessel, office / shore or fleet-wide"
              />
            ) : null}
          </div>
          <MocFormActions mocId={mocId} pendingText="Saving…">
            Record
          </MocFormActions>
        </Form>
      )}
    </section>
  );
}
