import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { PartAForm } from "~/components/part-a";
import { partAPageSchema, toNewMocInput } from "~/models/moc.schema";
import { createMoc } from "~/models/moc.server";
import { listVessels } from "~/models/vessel.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { domainErrorReply, runForPage } from "~/utils/page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export const meta: MetaFunction = () => [{ title: "New MOC · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUser(request);
  const [users, vessels] = await Promise.all([activeUserOptions(), listVessels({ activeOnly: true })]);
  return { users, vessels: vessels.map((v) => ({ _id: v._id, name: v.name })) };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema: partAPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const submit = submission.value.intent === "submit";
  const result = await runForPage(() => createMoc(user, toNewMocInput(submission.value), { submit }));
  if (!result.ok)
    return domainErrorReply(submission, result.error, (p) => (p === "implementer" ? "implementer-name" : p));
  const moc = result.value;
  return redirectWithFlash(`/mocs/${moc._id}`, {
    kind: "success",
    message: submit
      ? `MOC ${moc.serial_num} is raised; the implementer has been notified.`
      : `MOC ${moc.serial_num} is saved as a draft. Submit it when it is ready.`,
  });
}

export default function NewMoc() {
  const { users, vessels } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  return (
    <>
      <p>
        <Link to="/mocs">← MOCs</Link>
      </p>
      <div className="page-header">
        <div>
          <h1>New MOC</h1>
          <p className="muted">Part A: describe the change and choose who implements it.</p>
        </div>
      </div>
      <PartAForm
        id="new-moc"
        users={users}
        vessels={vessels}
        lastResult={lastResult}
        allowDraft
        submitLabel="Submit MOC"
      />
    </>
  );
}
