import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { PartAForm } from "~/components/part-a";
import { partAPageSchema, toNewMocInput } from "~/models/moc/moc.schema";
import { createMoc } from "~/models/moc/moc.server";
import { listAssignments, listVessels } from "~/models/fleet/vessel.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { followUpRef, followUpSource } from "~/models/moc/follow-up.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export const meta: MetaFunction = () => [{ title: "New MOC · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const query = new URL(request.url).searchParams;
  const followUpOf = query.get("followUp");
  const [users, vessels, assignments, followUp] = await Promise.all([
    activeUserOptions(),
    listVessels({ activeOnly: true }),
    listAssignments(user, { user_id: user._id }),
    // A follow-up MOC (issue 42): prefilled from the original, read here (never from the URL).
    followUpOf
      ? runForPage(() =>
          followUpSource(user, { followUp: followUpOf, item: query.get("item"), review: query.get("review") === "1" }),
        ).then((r) => (r.ok ? r.value : pageError(r.error)))
      : null,
  ]);
  // The vessel the person is assigned to today, preset (most changes are raised on board by its crew).
  const current = assignments.find((a) => a.current && vessels.some((v) => v._id === a.vessel._id));
  return {
    users,
    vessels: vessels.map((v) => ({ _id: v._id, name: v.name })),
    followUp: followUp && { ref: followUp.ref, mocId: followUp.mocId, what: followUp.what },
    defaultValue: followUp
      ? {
          title: { value: followUp.title },
          ...(followUp.vessel ? { vessel: { value: followUp.vessel } } : {}),
          "reason-for-change": { value: followUp.reason },
        }
      : current
        ? { vessel: { value: current.vessel._id } }
        : undefined,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const formData = withPlainTextAsHtml(await request.formData());
  const submission = parseWithZod(formData, { schema: partAPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const submit = submission.value.intent === "submit";
  const followUpOf = formData.get("followUp");
  const result = await runForPage(() =>
    createMoc(user, toNewMocInput(submission.value), {
      submit,
      followUp: followUpOf ? followUpRef(followUpOf) : undefined,
    }),
  );
  if (!result.ok)
    return domainErrorReply(submission, result.error, (p) => (p === "implementer" ? "implementer-name" : p));
  const moc = result.value;
  const attach = submission.value["attach-files"] === "on";
  return redirectWithFlash(attach ? `/mocs/${moc._id}/attachments` : `/mocs/${moc._id}`, {
    kind: "success",
    message:
      (submit
        ? `MOC ${moc.serial_num} is raised; the implementer has been notified.`
        : `MOC ${moc.serial_num} is saved as a draft. Submit it when it is ready.`) +
      (attach ? " Attach its photos and documents here." : ""),
  });
}

export default function NewMoc() {
  const { users, vessels, defaultValue, followUp } = useLoaderData<typeof loader>();
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
      {followUp ? (
        <p className="callout">
          A follow-up of <Link to={`/mocs/${followUp.mocId}`}>{followUp.what}</Link>. Once raised, the two MOCs are
          linked (“follow-up of”).
        </p>
      ) : null}
      <PartAForm
        id="new-moc"
        users={users}
        vessels={vessels}
        lastResult={lastResult}
        defaultValue={defaultValue}
        allowDraft
        offerAttachments
        submitLabel="Submit MOC"
        followUp={followUp?.ref}
      />
    </>
  );
}
