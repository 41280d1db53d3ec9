import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useOutlet, useSearchParams } from "@remix-run/react";
import { Form } from "~/components/form";
import { z } from "zod";
import { CONFIRM_DELETE_ID, CONFIRM_DELETE_PARAM, ConfirmDelete } from "~/components/confirm";
import { departmentLabel } from "~/components/moc";
import { ErrorList, Field, SelectField, SubmitButton } from "~/components/forms";
import { capitalise } from "~/models/shared/labels";
import { canManageUsers } from "~/models/authz/authz.server";
import { ACCESS_LEVELS, DEPARTMENTS, POSITIONS, ROLES } from "#db/schema/enums";
import { userFormSchema } from "~/models/people/user-forms.schema";
import { useSchemaForm } from "~/components/schema-form";
import { createUser, deleteUser, listUsers, updateUser, type PublicUser } from "~/models/people/user.server";
import { listOpenConflicts, resolveConflict, type OidcConflict } from "~/models/sign-in/oidc-users.server";
import { offeredRanks } from "~/models/people/ranks.server";
import { formatDateTime } from "~/components/moc";
import { requirePageUserWho } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { refuseControlCharacters } from "~/models/shared/text-rules";
import { fieldErrors, readPageQuery, runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Users · Change Management" }];

/** The search box: control characters are a 400 with a message (docs/decisions/028-untrusted-text-and-sign-in-links.md). */
const usersQuery = z.object({ q: refuseControlCharacters(z.string().optional()) });

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can manage users.";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageUsers, REFUSAL);
  const params = new URL(request.url).searchParams;
  const search = readPageQuery(request, usersQuery).q ?? "";
  return {
    users: await listUsers({ search }),
    conflicts: await listOpenConflicts(actor),
    ranks: await offeredRanks(),
    search,
    confirmDelete: params.get(CONFIRM_DELETE_PARAM),
  };
}

const rowSchema = z.object({
  intent: z.enum(["deactivate", "activate", "delete"]),
  userId: z.uuid(),
  // A delete needs the confirmation step's button: a bare "delete" post only asks first.
  confirmed: z.literal("yes").optional(),
});

/** A refused company sign-in settled from the list or the person's page (`back`: where to return). */
const conflictSchema = z.object({
  intent: z.enum(["relink", "dismiss"]),
  conflictId: z.uuid(),
  back: z
    .string()
    .regex(/^\/admin\/users(\/[0-9a-f-]{36})?$/)
    .optional(),
});

async function settleConflict(actor: PublicUser, formData: FormData) {
  const parsed = conflictSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success)
    return redirectWithFlash("/admin/users", { kind: "error", message: "That action was not understood." });
  const { intent, conflictId, back = "/admin/users" } = parsed.data;
  const result = await runForPage(() => resolveConflict(actor, conflictId, intent));
  if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
  return redirectWithFlash(back, {
    kind: "success",
    message:
      intent === "relink"
        ? `${result.value.name} is now linked to the company account that was refused; it signs them in from now on.`
        : `The refused sign-in is dismissed; ${result.value.name}'s link to the company account is unchanged.`,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageUsers, REFUSAL);
  const formData = await request.formData();
  const intent = formData.get("intent");
  if (intent === "relink" || intent === "dismiss") return settleConflict(actor, formData);
  if (intent === "create") {
    const submission = parseWithZod(formData, { schema: userFormSchema });
    if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
    const result = await runForPage(() => createUser(actor, submission.value));
    if (!result.ok) {
      const errors = fieldErrors(result.error);
      if (result.error.status === 409) errors.email = [result.error.message];
      return data(
        submission.reply({
          fieldErrors: errors,
          formErrors: Object.keys(errors).length ? undefined : [result.error.message],
          hideFields: ["password"],
        }),
        { status: result.error.status },
      );
    }
    return redirectWithFlash("/admin/users", {
      kind: "success",
      message: `${result.value.name} can now sign in with the password you chose; they will be asked to set their own.`,
    });
  }
  const row = rowSchema.safeParse(Object.fromEntries(formData));
  if (!row.success)
    return redirectWithFlash("/admin/users", { kind: "error", message: "That action was not understood." });
  const { userId } = row.data;
  if (row.data.intent === "delete" && !row.data.confirmed)
    return redirect(`/admin/users?${CONFIRM_DELETE_PARAM}=${encodeURIComponent(userId)}#${CONFIRM_DELETE_ID}`);
  const result = await runForPage(() =>
    row.data.intent === "delete"
      ? deleteUser(actor, userId).then(() => "deleted")
      : updateUser(actor, { _id: userId, active: row.data.intent === "activate" }).then((u) =>
          u.active ? `${u.name} is active again.` : `${u.name} is deactivated and signed out everywhere.`,
        ),
  );
  if (!result.ok) return redirectWithFlash("/admin/users", { kind: "error", message: result.error.message });
  return redirectWithFlash("/admin/users", {
    kind: "success",
    message: result.value === "deleted" ? "The user was deleted." : result.value,
  });
}

export const roleOptions = ROLES.map((r) => ({ value: r, label: r === "admin" ? "Administrator" : "User" }));
export const departmentOptions = DEPARTMENTS.map((d) => ({ value: d, label: departmentLabel(d) }));
export const accessOptions = ACCESS_LEVELS.map((a) => ({ value: a, label: capitalise(a) }));
export const positionOptions = POSITIONS.map((p) => ({ value: p, label: p }));
/** The rank select: the offered ranks, and the one the person holds if it is no longer offered. */
export const rankOptions = (offered: string[], holds: string | null = null) =>
  [...offered, ...(holds && !offered.includes(holds) ? [holds] : [])].map((r) => ({
    value: r,
    label: offered.includes(r) ? r : `${r} (no longer offered)`,
  }));

export default function AdminUsers() {
  const outlet = useOutlet();
  // /admin/users/:id edits one user: its form alone, not below the list.
  return outlet ?? <UserList />;
}

/**
 * Sign-ins through the identity provider refused because the email named someone linked to another
 * account there (docs/decisions/052-oidc-subject-link.md): what was attempted, and the two ways out.
 */
export function ProviderConflicts({ conflicts, back }: { conflicts: OidcConflict[]; back: string }) {
  if (conflicts.length === 0) return null;
  return (
    <section className="card table-wrap" aria-labelledby="provider-conflicts">
      <h2 id="provider-conflicts">Refused company sign-ins</h2>
      <p className="muted">
        Someone signed in at the identity provider with the email of a person here who is linked to another company
        account. Link the person to the new account only if it is theirs (their old one then stops working here);
        otherwise dismiss it.
      </p>
      <table className="stack-on-phone">
        <caption className="visually-hidden">Refused company sign-ins</caption>
        <thead>
          <tr>
            <th scope="col">Person here</th>
            <th scope="col">Company account that tried</th>
            <th scope="col">Linked now</th>
            <th scope="col">When</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {conflicts.map((c) => (
            <tr key={c.id}>
              <td data-label="Person here" className="break-anywhere">
                <Link to={`/admin/users/${c.user._id}`}>{c.user.name}</Link>
                <br />
                <span className="muted">{c.user.email}</span>
              </td>
              <td data-label="Company account that tried" className="break-anywhere">
                {c.name ? <strong>{c.name} </strong> : null}
                <span>{c.email}</span>
                <br />
                <span className="muted">
                  subject {c.subject} at {c.issuer}
                </span>
              </td>
              <td data-label="Linked now" className="break-anywhere">
                {c.linkedTo ?? <span className="muted">No account</span>}
              </td>
              <td data-label="When">
                {formatDateTime(c.lastAt)}
                {c.attempts > 1 ? (
                  <>
                    <br />
                    <span className="muted">
                      {c.attempts} attempts since {formatDateTime(c.firstAt)}
                    </span>
                  </>
                ) : null}
              </td>
              <td>
                <Form method="post" action="/admin/users" className="actions-cell">
                  <input type="hidden" name="conflictId" value={c.id} />
                  <input type="hidden" name="back" value={back} />
                  <button
                    type="submit"
                    name="intent"
                    value="relink"
                    className="button button-small"
                    aria-label={`Link to this account: ${c.user.name} to ${c.email} (subject ${c.subject})`}
                  >
                    Link to this account
                  </button>
                  <button
                    type="submit"
                    name="intent"
                    value="dismiss"
                    className="button button-small"
                    aria-label={`Dismiss: ${c.user.name} stays linked; ${c.email} (subject ${c.subject}) refused`}
                  >
                    Dismiss
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function UserList() {
  const { users, conflicts, ranks, search, confirmDelete } = useLoaderData<typeof loader>();
  const toDelete = confirmDelete ? users.find((u) => u._id === confirmDelete) : undefined;
  const lastResult = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const [form, fields] = useSchemaForm({
    id: "create-user",
    lastResult,
    defaultValue: { role: "user", access: "standard" },
    schema: () => import("~/models/people/user-forms.schema").then((m) => m.userFormSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const createOpen = Boolean(lastResult) || searchParams.has("new");
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Users</h1>
          <p className="muted">
            {users.length} {users.length === 1 ? "user" : "users"}
            {search ? ` matching “${search}”` : ""}
          </p>
        </div>
        <Form method="get" role="search" className="row">
          <div className="field">
            <label htmlFor="user-search">Search users</label>
            <input id="user-search" type="search" name="q" defaultValue={search} placeholder="Name or email" />
          </div>
          <button type="submit" className="button">
            Search
          </button>
        </Form>
      </div>

      {toDelete ? (
        <ConfirmDelete
          title={`Delete ${toDelete.name}?`}
          confirmLabel={`Delete ${toDelete.name} permanently`}
          cancelTo={search ? `/admin/users?q=${encodeURIComponent(search)}` : "/admin/users"}
          action="/admin/users"
          fields={{ userId: toDelete._id }}
        >
          <p>
            {toDelete.name} ({toDelete.email}) will be removed for good and can no longer sign in. Someone named on a
            MOC, PCR or review cannot be deleted: deactivate them instead.
          </p>
        </ConfirmDelete>
      ) : null}

      <ProviderConflicts conflicts={conflicts} back="/admin/users" />

      <details className="card" open={createOpen}>
        <summary>Create a user</summary>
        <Form method="post" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="create" />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="form-grid">
            <Field meta={fields.name} label="Name" autoComplete="off" />
            <Field meta={fields.email} label="Email" type="email" autoComplete="off" />
            <Field
              meta={fields.password}
              label="First password"
              type="password"
              autoComplete="new-password"
              hint="At least 8 characters; they choose their own at first sign-in."
            />
            <SelectField
              meta={fields.department}
              label="Department"
              options={departmentOptions}
              placeholder="Choose a department"
            />
            <SelectField meta={fields.role} label="Role" options={roleOptions} />
            <SelectField meta={fields.access} label="Access" options={accessOptions} />
            <SelectField
              meta={fields.position}
              label="PCR signing position"
              options={positionOptions}
              placeholder="None"
            />
            <SelectField meta={fields.rank} label="Rank on board" options={rankOptions(ranks)} placeholder="None" />
          </div>
          <div className="form-actions">
            <SubmitButton pendingText="Creating…">Create user</SubmitButton>
          </div>
        </Form>
      </details>

      <div className="card table-wrap">
        {users.length === 0 ? (
          <p className="empty">No users match your search.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Department</th>
                <th scope="col">Role and access</th>
                <th scope="col">Position</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user._id}>
                  <td data-label="Name" className="break-anywhere">
                    <strong>{user.name}</strong>
                    {user.rank ? <span className="muted">, {user.rank}</span> : null}
                    <br />
                    <span className="muted">{user.email}</span>
                  </td>
                  <td data-label="Department">{departmentLabel(user.department)}</td>
                  <td data-label="Role and access">
                    {user.role === "admin" ? <span className="badge badge-info">Admin</span> : "User"} ·{" "}
                    {capitalise(user.access)}
                  </td>
                  <td data-label="Position">{user.position ?? <span className="muted">None</span>}</td>
                  <td data-label="Status">
                    {user.active ? (
                      <span className="badge badge-success">Active</span>
                    ) : (
                      <span className="badge">Deactivated</span>
                    )}
                    {user.active && !user.onboarded ? (
                      <span className="badge badge-warning">Password not set yet</span>
                    ) : null}
                  </td>
                  <td>
                    <div className="actions-cell">
                      <Link
                        to={`/admin/users/${user._id}`}
                        className="button button-small"
                        aria-label={`Edit ${user.name}`}
                      >
                        Edit
                      </Link>
                      <Form method="post">
                        <input type="hidden" name="userId" value={user._id} />
                        <button
                          type="submit"
                          name="intent"
                          value={user.active ? "deactivate" : "activate"}
                          className="button button-small"
                          aria-label={`${user.active ? "Deactivate" : "Activate"} ${user.name}`}
                        >
                          {user.active ? "Deactivate" : "Activate"}
                        </button>
                      </Form>
                      <Link
                        to={`/admin/users?${new URLSearchParams({ ...(search ? { q: search } : {}), [CONFIRM_DELETE_PARAM]: user._id })}#${CONFIRM_DELETE_ID}`}
                        className="button button-small button-danger"
                        aria-label={`Delete ${user.name}`}
                      >
                        Delete
                      </Link>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
