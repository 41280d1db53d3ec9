import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { PcrForm } from "~/components/pcr-form";
import { pcrPageSchema, toPcrInput } from "~/models/pcr/pcr.schema";
import { createPcr } from "~/models/pcr/pcr.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { domainErrorReply, runForPage } from "~/utils/page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export const meta: MetaFunction = () => [{ title: "New PCR · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  return { users: (await activeUserOptions()).filter((u) => u._id !== user._id) };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema: pcrPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => createPcr(user, toPcrInput(submission.value)));
  if (!result.ok)
    return domainErrorReply(submission, result.error, (p) =>
      p.startsWith("affectedParties") ? "parties" : p.replace(/^form\./, ""),
    );
  return redirectWithFlash(`/pcrs/${result.value._id}`, {
    kind: "success",
    message: `PCR ${result.value.serial_num} is raised. Sign it first as the change originator.`,
  });
}

export default function NewPcr() {
  const { users } = useLoaderData<typeof loader>();
  return (
    <>
      <p>
        <Link to="/pcrs">← PCRs</Link>
      </p>
      <div className="page-header">
        <div>
          <h1>New PCR</h1>
          <p className="muted">
            Describe the procedure change. Six people sign it in order, then the affected parties.
          </p>
        </div>
      </div>
      <PcrForm users={users} lastResult={useActionData<typeof action>()} submitLabel="Raise PCR" />
    </>
  );
}
