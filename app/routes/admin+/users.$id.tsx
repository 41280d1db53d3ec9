import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, Field, SelectField, SubmitButton } from "~/components/forms";
import { canManageUsers } from "~/models/authz/authz.server";

import { userEditSchema } from "~/models/people/user-forms.schema";
import { useSchemaForm } from "~/components/schema-form";
import { getUserById, toPublicUser, updateUser } from "~/models/people/user.server";
import { requirePageUserWho } from "~/web/auth.server";
import { NotFound } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { fieldErrors, pageError, runForPage } from "~/utils/page.server";
import {
  accessOptions,
  departmentOptions,
  positionOptions,
  ProviderConflicts,
  rankOptions,
  roleOptions,
} from "~/routes/admin+/users";
import { offeredRanks } from "~/models/people/ranks.server";
import { listOpenConflicts, providerLinkOf } from "~/models/sign-in/oidc-users.server";
import { oidcSettings } from "~/web/oidc.server";
import { formatDateTime } from "~/components/moc";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.user.name ?? "User"} · Users · Change Management` },
];

const editSchema = userEditSchema;

async function load(request: Request, id: string | undefined) {
  const actor = await requirePageUserWho(request, canManageUsers, "Only administrators can manage users.");
  const row = id ? await getUserById(id) : undefined;
  if (!row) pageError(new NotFound("There is no such user."));
  return { actor, user: toPublicUser(row) };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { actor, user } = await load(request, params.id);
  const link = await providerLinkOf(user._id);
  return {
    user,
    ranks: rankOptions(await offeredRanks(), user.rank),
    // The company sign-in: shown when configured, or when the person is linked from before.
    provider: oidcSettings() || link ? { link, conflicts: await listOpenConflicts(actor, user._id) } : null,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { actor, user } = await load(request, params.id);
  const submission = parseWithZod(await request.formData(), { schema: editSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  const { password, ...rest } = submission.value;
  const result = await runForPage(() =>
    updateUser(actor, { _id: user._id, ...rest, ...(password ? { password } : {}) }),
  );
  if (!result.ok) {
    const errors = fieldErrors(result.error);
    if (result.error.status === 409 && /email/i.test(result.error.message)) errors.email = [result.error.message];
    return data(
      submission.reply({
        fieldErrors: errors,
        formErrors: Object.keys(errors).length ? undefined : [result.error.message],
        hideFields: ["password"],
      }),
      { status: result.error.status },
    );
  }
  return redirectWithFlash("/admin/users", { kind: "success", message: `${result.value.name} is saved.` });
}

export default function EditUser() {
  const { user, ranks, provider } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({
    id: `edit-user-${user._id}`,
    lastResult,
    defaultValue: {
      ...user,
      position: user.position ?? "",
      rank: user.rank ?? "",
      active: user.active ? "on" : undefined,
    },
    schema: () => import("~/models/people/user-forms.schema").then((m) => m.userEditSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  return (
    <>
      <p>
        <Link to="/admin/users">← All users</Link>
      </p>
      <div className="page-header">
        <h1>Edit {user.name}</h1>
      </div>
      <section className="card">
        <Form method="post" {...getFormProps(form)}>
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="form-grid">
            <Field meta={fields.name} label="Name" />
            <Field meta={fields.email} label="Email" type="email" />
            <Field
              meta={fields.password}
              label="Set a new password"
              type="password"
              autoComplete="new-password"
              hint="Leave empty to keep the current one. A new password signs them out and asks them to choose their own."
            />
            <SelectField meta={fields.department} label="Department" options={departmentOptions} />
            <SelectField meta={fields.role} label="Role" options={roleOptions} />
            <SelectField meta={fields.access} label="Access" options={accessOptions} />
            <SelectField
              meta={fields.position}
              label="PCR signing position"
              options={positionOptions}
              placeholder="None"
            />
            <SelectField meta={fields.rank} label="Rank on board" options={ranks} placeholder="None" />
            <div className="field">
              <span className="checkbox">
                <input {...getInputProps(fields.active, { type: "checkbox" })} key={fields.active.key} />
                <label htmlFor={fields.active.id}>Active (can sign in and receives email)</label>
              </span>
              <ErrorList id={fields.active.errorId} errors={fields.active.errors} />
            </div>
          </div>
          <div className="form-actions">
            <SubmitButton>Save changes</SubmitButton>
            <Link to="/admin/users" className="button">
              Cancel
            </Link>
          </div>
        </Form>
      </section>
      {provider ? (
        <section className="card" aria-labelledby="company-sign-in">
          <h2 id="company-sign-in">Company sign-in</h2>
          <p>
            {provider.link ? (
              <>
                Linked to the account <span className="break-anywhere">{provider.link.account}</span> at the identity
                provider since {formatDateTime(provider.link.since)}. Only that account signs {user.name} in.
              </>
            ) : (
              <>Not linked yet: the first sign-in through the identity provider with {user.email} links the account.</>
            )}
          </p>
        </section>
      ) : null}
      {provider ? <ProviderConflicts conflicts={provider.conflicts} back={`/admin/users/${user._id}`} /> : null}
    </>
  );
}
