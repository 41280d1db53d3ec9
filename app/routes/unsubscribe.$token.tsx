/**
 * An email's unsubscribe link (docs/decisions/029-oidc-and-notifications.md): no sign-in, the
 * signed token names the person and the one kind of notice it stops emailing (in-app only after).
 * GET asks first (link scanners fetch links); POST does it: the page's button, or a mail client's
 * one-click `List-Unsubscribe=One-Click` (RFC 8058), which comes from anywhere by design.
 */
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { NOTICE_KIND_INFO, unsubscribe, unsubscribeTarget } from "~/models/people/notice-preferences.server";
import { DomainError } from "~/utils/errors";

export const meta: MetaFunction = () => [{ title: "Unsubscribe · Change Management" }];

const refused = (error: unknown) => {
  if (error instanceof DomainError) {
    return Response.json({ error: error.message }, { status: error.status, headers: { "Cache-Control": "no-store" } });
  }
  throw error;
};

export async function loader({ params }: LoaderFunctionArgs) {
  try {
    const target = await unsubscribeTarget(params.token ?? "");
    return Response.json(
      { name: target.name, kind: NOTICE_KIND_INFO[target.kind].label },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return refused(error);
  }
}

export async function action({ params, request }: ActionFunctionArgs) {
  try {
    const { kind } = await unsubscribe(params.token ?? "");
    const body = await request.text().catch(() => "");
    // A mail client's one-click request wants a plain answer, not a page.
    if (body.includes("List-Unsubscribe=One-Click") && !body.includes("intent=")) {
      return new Response(`Unsubscribed from ${NOTICE_KIND_INFO[kind].label} emails`, {
        headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
      });
    }
    return Response.json({ done: NOTICE_KIND_INFO[kind].label }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return refused(error);
  }
}

export default function Unsubscribe() {
  const data = useLoaderData<{ name?: string; kind?: string; error?: string }>();
  const done = useActionData<{ done?: string; error?: string }>();
  return (
    <div className="auth-card">
      <h1>Unsubscribe</h1>
      {data.error || done?.error ? (
        <p className="flash flash-error" role="alert">
          {data.error ?? done?.error}
        </p>
      ) : done?.done ? (
        <p className="flash flash-success" role="status">
          Done: no more emails about “{done.done}”. They still appear in your notifications in the app. Your other
          choices did not change.
        </p>
      ) : (
        <>
          <p>
            Stop emails about <strong>{data.kind}</strong> to {data.name}? They will still appear in the app&rsquo;s
            notifications; your other choices stay as they are.
          </p>
          <Form method="post" reloadDocument>
            <button type="submit" name="intent" value="unsubscribe" className="button button-primary">
              Stop these emails
            </button>
          </Form>
        </>
      )}
      <p>
        <Link to="/notifications/preferences">Choose all your notices</Link> (after signing in).
      </p>
    </div>
  );
}
