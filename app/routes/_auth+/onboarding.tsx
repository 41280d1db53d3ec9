import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { onboardingSchema } from "~/models/people/user-forms.schema";
import { useSchemaForm } from "~/components/schema-form";
import { completeOnboarding } from "~/models/people/user.server";
import { requirePageIdentity, safeRedirect } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { fieldErrors, runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Choose your password · Change Management" }];

const schema = onboardingSchema;

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requirePageIdentity(request, { allowNotOnboarded: true });
  if (user.onboarded) throw redirect("/");
  return { name: user.name };
}

export async function action({ request }: ActionFunctionArgs) {
  const identity = await requirePageIdentity(request, { allowNotOnboarded: true });
  if (identity.user.onboarded) throw redirect("/");
  const submission = parseWithZod(await request.formData(), { schema });
  if (submission.status !== "success") {
    return data(submission.reply({ hideFields: ["password", "confirm"] }), { status: 400 });
  }
  const result = await runForPage(() =>
    completeOnboarding(identity.user, submission.value.password, identity.sessionId),
  );
  if (!result.ok) {
    return data(submission.reply({ fieldErrors: fieldErrors(result.error), hideFields: ["password", "confirm"] }), {
      status: result.error.status,
    });
  }
  const target = safeRedirect(new URL(request.url).searchParams.get("redirectTo"));
  return redirectWithFlash(target, { kind: "success", message: "Your password is set. Welcome aboard." });
}

export default function Onboarding() {
  const { name } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({
    id: "onboarding",
    lastResult,
    schema: () => import("~/models/people/user-forms.schema").then((m) => m.onboardingSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  return (
    <div className="auth-card">
      <h1>Choose your password</h1>
      <p className="muted">
        Welcome, {name}. An administrator set your first password; choose your own before you continue.
      </p>
      <Form method="post" {...getFormProps(form)} className="stack">
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field
          meta={fields.password}
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters."
          autoFocus
        />
        <Field meta={fields.confirm} label="Repeat the new password" type="password" autoComplete="new-password" />
        <SubmitButton pendingText="Saving…">Set password and continue</SubmitButton>
      </Form>
      <Form method="post" action="/logout" className="form-actions">
        <button type="submit" className="button button-quiet">
          Sign out
        </button>
      </Form>
    </div>
  );
}
