/**
 * /login/link: the one-time sign-in link by email (app/models/sign-in/sign-in-link.server.ts). Without a
 * token: a form asking for a link. With `?token=`: a button that signs in. The link never signs in
 * on GET, so a mail scanner that opens links ahead of the reader cannot use it up.
 */
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { useLazyValidation } from "~/components/lazy-validation";
import { createSession } from "~/models/sign-in/session.server";
import { passwordAllowedFor, passwordSignInOff } from "~/web/password-policy.server";
import { redeemSignInLink, requestSignInLink, SIGN_IN_LINK_MINUTES } from "~/models/sign-in/sign-in-link.server";
import { signInLinkSchema } from "~/models/people/user.schema";
import { assertSameOriginForPage, sessionCookie } from "~/web/auth.server";
import { clientAddress } from "~/utils/client-address.server";
import { runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Sign in with a link · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token");
  return { token: token && token.length <= 100 ? token : null, minutes: SIGN_IN_LINK_MINUTES };
}

export async function action({ request }: ActionFunctionArgs) {
  assertSameOriginForPage(request);
  const submission = parseWithZod(await request.formData(), { schema: signInLinkSchema });
  if (submission.status !== "success") return data({ result: submission.reply(), sent: false }, { status: 400 });
  const value = submission.value;
  if (value.intent === "send") {
    const { email } = value;
    // With PASSWORD_SIGN_IN=off a link would bypass the identity provider: none is sent (the page
    // answers alike, so it tells nobody whether the account exists; decision 029).
    const asked = await runForPage(async () => {
      if (passwordAllowedFor(email)) await requestSignInLink(email, clientAddress(request));
    });
    if (!asked.ok) {
      return data(
        { result: submission.reply({ formErrors: [asked.error.message] }), sent: false },
        { status: asked.error.status, headers: asked.error.headers },
      );
    }
    return { result: submission.reply({ resetForm: true }), sent: true };
  }
  const redeemed = await runForPage(() => redeemSignInLink(value.token));
  if (!redeemed.ok) {
    return data({ result: submission.reply({ formErrors: [redeemed.error.message] }), sent: false }, { status: 400 });
  }
  const user = redeemed.value;
  if (!passwordAllowedFor(user.email)) {
    return data({ result: submission.reply({ formErrors: [passwordSignInOff()] }), sent: false }, { status: 403 });
  }
  const { token } = await createSession(user);
  return redirect(user.onboarded ? "/" : "/onboarding", { headers: { "Set-Cookie": await sessionCookie(token) } });
}

export default function SignInLink() {
  const { token, minutes } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "sign-in-link",
    lastResult: answer?.result,
    onValidate: useLazyValidation("sign-in-link", () =>
      import("~/models/people/user.schema").then((m) => m.signInLinkSchema),
    ),
    shouldValidate: "onSubmit",
  });
  const failedRedeem = Boolean(token && answer && !answer.sent);
  return (
    <div className="auth-card">
      <div className="auth-brand" aria-hidden="true">
        MOC
      </div>
      <h1>Sign in with a link</h1>
      {token && !failedRedeem ? (
        <Form method="post" {...getFormProps(form)} className="stack">
          <p>This one-time link signs you in without your password. It works once.</p>
          <input type="hidden" name="intent" value="redeem" />
          <input type="hidden" name="token" value={token} />
          <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
        </Form>
      ) : (
        <Form method="post" {...getFormProps(form)} className="stack">
          <ErrorList id={form.errorId} errors={form.errors} />
          {answer?.sent ? (
            <p className="flash flash-info" role="status">
              If an active account has that email, a sign-in link is on its way. It works once, for {minutes} minutes.
              Nothing arrived? Check the spam folder, or ask again in a few minutes.
            </p>
          ) : (
            <p className="muted">
              Locked out after failed attempts, or forgot your password? We email you a link that signs you in once,
              without a password. It lasts {minutes} minutes.
            </p>
          )}
          <input type="hidden" name="intent" value="send" />
          <Field meta={fields.email} label="Email" type="email" autoComplete="username" />
          <SubmitButton pendingText="Sending…">Email me a sign-in link</SubmitButton>
        </Form>
      )}
      <p>
        <Link to="/login">Back to sign in with a password</Link>
      </p>
    </div>
  );
}
