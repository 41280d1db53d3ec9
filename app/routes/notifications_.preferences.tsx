/**
 * Choosing one's notices, per kind: email and in-app, in-app with a daily digest email, in-app
 * only, or off (a step waiting on the person is never off, nor kept for the digest). A plain form: it works without JavaScript; a partial post changes only the
 * kinds it names (docs/decisions/029-oidc-and-notifications.md).
 */
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form, IDEMPOTENCY_FIELD } from "~/components/form";
import { SubmitButton } from "~/components/submit";
import { NOTICE_KINDS } from "#db/schema/enums";
import {
  CHANNEL_LABEL,
  channelsAllowed,
  NOTICE_KIND_INFO,
  preferencesOf,
  setPreferences,
} from "~/models/people/notice-preferences.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Notification choices · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const chosen = await preferencesOf(user._id);
  return {
    kinds: NOTICE_KINDS.map((kind) => ({
      kind,
      label: NOTICE_KIND_INFO[kind].label,
      description: NOTICE_KIND_INFO[kind].description,
      channel: chosen[kind],
      defaultChannel: NOTICE_KIND_INFO[kind].default,
      options: channelsAllowed(kind).map((channel) => ({ channel, label: CHANNEL_LABEL[channel] })),
    })),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  // Every field but the form's idempotency key (app/components/form.tsx) names a kind of notice.
  const { [IDEMPOTENCY_FIELD]: _key, ...form } = Object.fromEntries(await request.formData());
  const result = await runForPage(() => setPreferences(user, form));
  if (!result.ok) return Response.json({ message: result.error.message }, { status: result.error.status });
  return redirectWithFlash("/notifications/preferences", { kind: "success", message: "Your choices are saved." });
}

export default function NotificationPreferences() {
  const { kinds } = useLoaderData<typeof loader>();
  const failed = useActionData<{ message: string }>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Notification choices</h1>
          <p className="muted">
            For each kind of notice: by email and in the app, in the app with one email a day listing them (sent each
            morning), in the app only, or not at all. You are never told about what you did yourself.
          </p>
        </div>
        <Link to="/notifications">Back to notifications</Link>
      </div>
      {failed ? (
        <p className="flash flash-error" role="alert">
          {failed.message}
        </p>
      ) : null}
      <Form method="post" className="card stack notice-choices">
        {kinds.map((k) => (
          <fieldset key={k.kind} className="notice-choice">
            <legend>{k.label}</legend>
            <p className="muted" id={`${k.kind}-help`}>
              {k.description} Default: {k.options.find((o) => o.channel === k.defaultChannel)?.label.toLowerCase()}.
              {k.options.length < 3 ? " This is your work, so it is always shown in the app." : ""}
            </p>
            <div className="notice-options" role="radiogroup" aria-describedby={`${k.kind}-help`}>
              {k.options.map((o) => (
                <label key={o.channel} className="notice-option">
                  <input type="radio" name={k.kind} value={o.channel} defaultChecked={k.channel === o.channel} />{" "}
                  {o.label}
                </label>
              ))}
            </div>
          </fieldset>
        ))}
        <div className="form-actions">
          <SubmitButton pendingText="Saving…">Save choices</SubmitButton>
        </div>
      </Form>
    </>
  );
}
