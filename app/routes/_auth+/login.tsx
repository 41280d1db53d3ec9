import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  data,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useEffect } from "react";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { createSession } from "~/models/sign-in/session.server";
import { loginSchema } from "~/models/people/user.schema";
import { useLazyValidation } from "~/components/lazy-validation";
import { assertSameOrigin, authenticate, authenticator, safeRedirect, sessionCookie } from "~/web/auth.server";
import { DomainError, Invalid } from "~/utils/errors";
import { env } from "~/utils/env.server";
import { OidcButton } from "~/components/oidc";
import { oidcSettings } from "~/web/oidc.server";
import { errorResponse, toErrorResponse } from "~/utils/http.server";

/** API clients post here with `Accept: application/json` and get JSON back (see entry.server). */
export const handle = { jsonActions: true };

// Keep the action's Set-Cookie and Retry-After on the document response.
export const headers: HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: MetaFunction = () => [{ title: "Sign in · Change Management" }];

// No redirect for a signed-in visitor: loaders also run after the action, with the old cookie,
// and a redirect there would swallow the new session. The page offers the way back instead.
export async function loader({ request }: LoaderFunctionArgs) {
  const result = await authenticate(request);
  return {
    signedInAs: result.ok ? result.identity.user.name : null,
    // The identity provider's button (docs/decisions/029-oidc-and-notifications.md).
    oidc: oidcSettings(),
    passwordsOn: env().PASSWORD_SIGN_IN === "on",
  };
}

const wantsJson = (request: Request) => (request.headers.get("Accept") ?? "").includes("application/json");

export async function action({ request }: ActionFunctionArgs) {
  const json = wantsJson(request);
  const parsedForm = await request
    .clone()
    .formData()
    .catch(() => null);
  const form = parsedForm ?? new FormData();
  const submission = parseWithZod(form, { schema: loginSchema });
  try {
    // Login CSRF: a form on another site must not sign the browser into an account of its choosing.
    assertSameOrigin(request);
    // A body that is not a form (JSON, say) is bad input, not a server error.
    if (!parsedForm) throw new Invalid("Send email and password as form fields (application/x-www-form-urlencoded)");
    const user = await authenticator().authenticate("form", request);
    // Where to go is settled before the session exists, so nothing can fail between the two.
    const wanted = safeRedirect(form.get("redirectTo"));
    const target = user.onboarded
      ? wanted
      : `/onboarding${wanted === "/" ? "" : `?redirectTo=${encodeURIComponent(wanted)}`}`;
    const { token } = await createSession(user);
    const headers = { "Set-Cookie": await sessionCookie(token) };
    if (json) {
      return Response.json(
        { token, admin: user.role === "admin", onboarded: user.onboarded },
        { headers: { ...headers, "Cache-Control": "no-store" } },
      );
    }
    return redirect(target, { headers });
  } catch (error) {
    if (json) {
      return error instanceof DomainError
        ? errorResponse(error.status, error.message, error.issues, error.headers)
        : toErrorResponse(error, request);
    }
    if (!(error instanceof DomainError)) throw error;
    const reply =
      error.status === 400 && submission.status !== "success"
        ? submission.reply({ hideFields: ["password"] })
        : submission.reply({ formErrors: [error.message], hideFields: ["password"] });
    return data(reply, { status: error.status, headers: error.headers });
  }
}

export default function Login() {
  const lastResult = useActionData<typeof action>();
  const { signedInAs, oidc, passwordsOn } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const [form, fields] = useForm({
    id: "login",
    lastResult: lastResult && "status" in lastResult ? lastResult : undefined,
    onValidate: useLazyValidation("login", () => import("~/models/people/user.schema").then((m) => m.loginSchema)),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  // After a failed attempt the password field starts empty again, as it does without JavaScript.
  // (Set on the element itself: a conform update would re-validate and hide the message.)
  useEffect(() => {
    const input = document.getElementById(fields.password.id);
    if (lastResult && input instanceof HTMLInputElement) input.value = "";
  }, [lastResult, fields.password.id]);
  const passwordForm = (
    <Form method="post" {...getFormProps(form)} className="stack">
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? "/"} />
      <Field meta={fields.email} label="Email" type="email" autoComplete="username" autoFocus={!oidc} />
      <Field meta={fields.password} label="Password" type="password" autoComplete="current-password" />
      <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
    </Form>
  );
  return (
    <div className="auth-card">
      <div className="auth-brand" aria-hidden="true">
        MOC
      </div>
      <h1>Sign in</h1>
      <p className="muted">Management of change and procedure change requests.</p>
      {signedInAs ? (
        <p className="flash flash-info">
          You are signed in as {signedInAs}. <a href="/">Go to the dashboard</a>, or sign in as someone else.
        </p>
      ) : null}
      {oidc ? <OidcButton displayName={oidc.displayName} redirectTo={searchParams.get("redirectTo") ?? "/"} /> : null}
      {oidc && passwordsOn ? <p className="muted auth-or">or with your password</p> : null}
      {passwordsOn || lastResult ? (
        passwordForm
      ) : (
        <details className="auth-break-glass">
          <summary>Administrator sign-in with a password</summary>
          {passwordForm}
        </details>
      )}
      {passwordsOn ? (
        <p className="muted">
          Forgot your password, or locked out after failed attempts?{" "}
          <a href="/login/link">Email me a one-time sign-in link</a>: it signs you in without a password.
        </p>
      ) : null}
    </div>
  );
}
