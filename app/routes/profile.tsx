import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { capitalise, departmentLabel } from "~/models/shared/labels";
import { profileSchema } from "~/models/people/user-forms.schema";
import { useSchemaForm } from "~/components/schema-form";
import { reminderPreferenceOf, setReminderPreference } from "~/models/moc/reminder.server";
import { updateOwnProfile } from "~/models/people/user.server";
import { DelegationForm, DelegationTable } from "~/components/delegations";
import { delegationsOf } from "~/models/people/delegation.server";
import { delegationPageAction, isDelegationPost } from "~/web/delegation-page.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { requirePageIdentity } from "~/web/auth.server";
import { clientAddress } from "~/utils/client-address.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { fieldErrors, runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Your profile · Change Management" }];

const schema = profileSchema;

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requirePageIdentity(request);
  const [reminderPreference, delegations, people] = await Promise.all([
    reminderPreferenceOf(user._id),
    delegationsOf(user._id),
    activeUserOptions(),
  ]);
  return {
    user,
    reminderPreference,
    delegations,
    people: people.filter((p) => p._id !== user._id),
    today: new Date().toISOString().slice(0, 10),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const identity = await requirePageIdentity(request);
  const formData = await request.formData();
  if (isDelegationPost(formData)) return delegationPageAction(formData, identity.user, "/profile", identity.user._id);
  if (formData.get("intent") === "reminders") {
    const saved = await runForPage(() => setReminderPreference(identity.user, formData.get("reminderPreference")));
    if (!saved.ok) {
      return data({ intent: "reminders", reply: null, error: saved.error.message }, { status: saved.error.status });
    }
    return redirectWithFlash("/profile", {
      kind: "success",
      message:
        saved.value === "digest"
          ? "You will get one daily digest of your due MOCs."
          : "You will get one reminder email per due MOC.",
    });
  }
  const submission = parseWithZod(formData, { schema });
  const hideFields = ["currentPassword", "password", "confirm"];
  if (submission.status !== "success") {
    return data({ intent: String(formData.get("intent")), reply: submission.reply({ hideFields }) }, { status: 400 });
  }
  const value = submission.value;
  const input =
    value.intent === "details"
      ? { name: value.name, email: value.email, currentPassword: value.currentPassword }
      : { password: value.password, currentPassword: value.currentPassword };
  const result = await runForPage(() =>
    updateOwnProfile(identity.user, input, {
      keepSessionId: identity.sessionId,
      clientAddress: clientAddress(request),
    }),
  );
  if (!result.ok) {
    const errors = fieldErrors(result.error);
    const reply = Object.keys(errors).length
      ? submission.reply({ fieldErrors: errors, hideFields })
      : submission.reply({ formErrors: [result.error.message], hideFields });
    return data({ intent: value.intent, reply }, { status: result.error.status });
  }
  return redirectWithFlash("/profile", {
    kind: "success",
    message:
      value.intent === "details"
        ? "Your details are saved."
        : "Your password is changed. Other sessions were signed out.",
  });
}

const REMINDER_CHOICES = [
  ["per_moc", "One email per MOC"],
  ["digest", "One daily digest, most urgent first"],
] as const;

export default function Profile() {
  const { user, reminderPreference, delegations, people, today } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const reminderError = result && "error" in result ? result.error : null;
  const delegationReply = result && result.intent === "delegate" && "values" in result ? result : null;
  const [detailsForm, details] = useSchemaForm({
    id: "profile-details",
    lastResult: result?.intent === "details" && "reply" in result ? result.reply : undefined,
    defaultValue: { name: user.name, email: user.email },
    schema: () => import("~/models/people/user-forms.schema").then((m) => m.profileDetailsSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onBlur",
  });
  const [passwordForm, password] = useSchemaForm({
    id: "profile-password",
    lastResult: result?.intent === "password" && "reply" in result ? (result.reply ?? undefined) : undefined,
    schema: () => import("~/models/people/user-forms.schema").then((m) => m.profilePasswordSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onBlur",
  });
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Your profile</h1>
          <p className="muted">
            {departmentLabel(user.department)} · {user.role === "admin" ? "Administrator" : "User"} ·{" "}
            {capitalise(user.access)} access
            {user.position ? ` · ${user.position}` : ""}
          </p>
        </div>
      </div>
      <div className="grid">
        <section className="card" aria-labelledby="details-title">
          <h2 id="details-title">Name and email</h2>
          <Form method="post" {...getFormProps(detailsForm)} className="stack">
            <input type="hidden" name="intent" value="details" />
            <ErrorList id={detailsForm.errorId} errors={detailsForm.errors} />
            {user.role === "admin" ? (
              <Field meta={details.name} label="Name" autoComplete="name" />
            ) : (
              <div className="field">
                <p>
                  Name: <strong>{user.name}</strong>
                </p>
                <p className="muted">
                  Your name is what your signatures print, so only an admin changes it. Ask one if it is wrong.
                </p>
              </div>
            )}
            <Field meta={details.email} label="Email" type="email" autoComplete="email" />
            <Field
              meta={details.currentPassword}
              label="Current password"
              type="password"
              autoComplete="current-password"
              hint="Needed to change your email."
            />
            <SubmitButton>Save details</SubmitButton>
          </Form>
        </section>
        <section className="card" aria-labelledby="password-title">
          <h2 id="password-title">Change password</h2>
          <Form method="post" {...getFormProps(passwordForm)} className="stack">
            <input type="hidden" name="intent" value="password" />
            <ErrorList id={passwordForm.errorId} errors={passwordForm.errors} />
            <Field
              meta={password.currentPassword}
              label="Current password"
              type="password"
              autoComplete="current-password"
            />
            <Field
              meta={password.password}
              label="New password"
              type="password"
              autoComplete="new-password"
              hint="At least 8 characters."
            />
            <Field
              meta={password.confirm}
              label="Repeat the new password"
              type="password"
              autoComplete="new-password"
            />
            <SubmitButton>Change password</SubmitButton>
          </Form>
        </section>
        <section className="card" aria-labelledby="reminders-title">
          <h2 id="reminders-title">Target-date reminders</h2>
          <Form method="post" className="stack" aria-describedby={reminderError ? "reminders-error" : undefined}>
            <input type="hidden" name="intent" value="reminders" />
            {reminderError ? (
              <p id="reminders-error" className="field-errors" role="alert">
                {reminderError}
              </p>
            ) : null}
            <fieldset>
              <legend>When MOCs you are involved in near their target date, send me</legend>
              {REMINDER_CHOICES.map(([value, label]) => (
                <label key={value}>
                  <input
                    type="radio"
                    name="reminderPreference"
                    value={value}
                    defaultChecked={reminderPreference === value}
                  />{" "}
                  {label}
                </label>
              ))}
            </fieldset>
            <SubmitButton>Save reminder choice</SubmitButton>
          </Form>
        </section>
      </div>
      <section className="card" aria-labelledby="delegation-title">
        <h2 id="delegation-title">When you are away</h2>
        <p className="muted">
          In the period you name, your delegate may take the MOC steps waiting on you (recorded as acting on your
          behalf, never on a decision about a change they raised or carry out) and gets your MOC emails. You still see
          everything and may act too. Your delegate&apos;s own delegations do not pass your work on.
        </p>
        <DelegationTable
          rows={delegations}
          today={today}
          canEnd={(d) => d.userId === user._id || user.role === "admin"}
          caption="Your delegations, given and received"
        />
        <h3>Name a delegate</h3>
        <DelegationForm users={people} reply={delegationReply} forSomeone={false} />
      </section>
    </>
  );
}
