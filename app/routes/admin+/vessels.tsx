import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { ErrorList, Field, SelectField, SubmitButton } from "~/components/forms";
import { formatDate } from "~/components/moc";
import { canManageVessels } from "~/models/authz/authz.server";
import { assignmentBodySchema, vesselFields } from "~/models/fleet/vessel.schema";
import {
  addAssignment,
  createVessel,
  deleteVessel,
  listAssignments,
  listVessels,
  removeAssignment,
  updateVessel,
} from "~/models/fleet/vessel.server";
import { requirePageUserWho } from "~/web/auth.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { Invalid } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Vessels · Change Management" }];

/** The page's forms (docs/decisions/036-vessels-and-crew-access.md): the API's own schemas. */
const vesselPageSchema = z.object({ ...vesselFields, active: z.boolean().default(false) });
const addVesselSchema = z.object({
  name: vesselFields.name,
  imo: vesselFields.imo,
  ship_type: vesselFields.ship_type,
  flag: vesselFields.flag,
});
const idSchema = z.object({ id: z.uuid({ error: "Expected an id" }) });

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators keep the vessel register.";

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUserWho(request, canManageVessels, REFUSAL);
  const [vessels, assignments, people] = await Promise.all([
    listVessels(),
    listAssignments(user, {}),
    activeUserOptions(),
  ]);
  return { vessels, assignments, people };
}

type Reply = { intent: string; id?: string; reply: SubmissionResult<string[]> };

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageVessels, REFUSAL);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = typeof form.get("id") === "string" ? String(form.get("id")) : undefined;
  const run = async <S extends z.ZodType>(schema: S, fn: (value: z.output<S>) => Promise<unknown>, message: string) => {
    const submission = parseWithZod(form, { schema });
    if (submission.status !== "success") return data<Reply>({ intent, id, reply: submission.reply() }, { status: 400 });
    const result = await runForPage(() => fn(submission.value));
    if (!result.ok) {
      const reply = domainErrorReply(submission, result.error).data as SubmissionResult<string[]>;
      return data<Reply>({ intent, id, reply }, { status: result.error.status });
    }
    return redirectWithFlash("/admin/vessels", { kind: "success", message });
  };
  switch (intent) {
    case "add":
      return run(addVesselSchema, (v) => createVessel(actor, v), "The vessel is in the register.");
    case "edit":
      return run(
        vesselPageSchema.extend(idSchema.shape),
        ({ id, ...v }) => updateVessel(actor, id, v),
        "The vessel is saved.",
      );
    case "delete":
      return run(idSchema, ({ id }) => deleteVessel(actor, id), "The vessel is deleted.");
    case "assign":
      return run(assignmentBodySchema, (a) => addAssignment(actor, a), "The assignment is saved.");
    case "unassign":
      return run(idSchema, ({ id }) => removeAssignment(actor, id), "The assignment is removed.");
    default:
      pageError(new Invalid("That action was not understood."));
  }
}

export default function AdminVessels() {
  const { vessels, assignments, people } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as Reply | undefined;
  const replyFor = (intent: string, id?: string) =>
    result && result.intent === intent && (id === undefined || result.id === id) ? result.reply : undefined;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Vessels</h1>
          <p className="muted">
            The fleet&apos;s vessels, which Part A of a MOC names, and who is on board when. People assigned to a vessel
            today may read its MOCs.
          </p>
        </div>
      </div>
      <section className="card table-wrap" aria-labelledby="register-title">
        <h2 id="register-title">Register</h2>
        {vessels.length === 0 ? (
          <p className="empty">No vessels yet: add the first below.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Vessels</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">IMO</th>
                <th scope="col">Ship type</th>
                <th scope="col">Flag</th>
                <th scope="col">Active</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {vessels.map((v) => (
                <tr key={v._id}>
                  <td data-label="Name">
                    <Link to={`/vessels/${v._id}`}>{v.name}</Link>
                  </td>
                  <td data-label="IMO">{v.imo}</td>
                  <td data-label="Ship type">{v.ship_type || "—"}</td>
                  <td data-label="Flag">{v.flag || "—"}</td>
                  <td data-label="Active">{v.active ? "Yes" : "No"}</td>
                  <td data-label="Change">
                    <details open={Boolean(replyFor("edit", v._id) || replyFor("delete", v._id))}>
                      <summary>
                        Edit <span className="visually-hidden">{v.name}</span>
                      </summary>
                      <EditVessel vessel={v} reply={replyFor("edit", v._id)} />
                      <DeleteVessel vessel={v} reply={replyFor("delete", v._id)} />
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card" aria-labelledby="add-title">
        <h2 id="add-title">Add a vessel</h2>
        {/* A fresh form after each addition (the last one's input and errors are gone). */}
        <AddVessel key={vessels.length} reply={replyFor("add")} />
      </section>
      <section className="card table-wrap" aria-labelledby="crew-title">
        <h2 id="crew-title">Crew assignments</h2>
        {assignments.length === 0 ? (
          <p className="empty">Nobody is assigned to a vessel yet.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Crew assignments, latest first</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Vessel</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Now</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {assignments.map((a) => (
                <tr key={a._id}>
                  <td data-label="Person">{a.user.name}</td>
                  <td data-label="Vessel">{a.vessel.name}</td>
                  <td data-label="From">{formatDate(a.from)}</td>
                  <td data-label="To">{a.to ? formatDate(a.to) : "Open-ended"}</td>
                  <td data-label="Now">{a.current ? "On board" : "—"}</td>
                  <td data-label="Remove">
                    <Form method="post">
                      <input type="hidden" name="intent" value="unassign" />
                      <input type="hidden" name="id" value={a._id} />
                      <SubmitButton className="button" name="intent" value="unassign" pendingText="Removing…">
                        Remove{" "}
                        <span className="visually-hidden">{`${a.user.name} on ${a.vessel.name} from ${a.from}`}</span>
                      </SubmitButton>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h3>Assign someone to a vessel</h3>
        <AssignForm
          key={assignments.length}
          vessels={vessels.filter((v) => v.active)}
          people={people}
          reply={replyFor("assign")}
        />
      </section>
    </>
  );
}

type VesselFormValues = { name: string; imo: string; ship_type?: string; flag?: string };

function AddVessel({ reply }: { reply: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm<VesselFormValues>({ id: "add-vessel", lastResult: reply });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="add" />
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="stack">
        <Field meta={fields.name} label="Name" required />
        <Field meta={fields.imo} label="IMO number" hint="Seven digits, the last is the check digit." required />
        <Field meta={fields.ship_type} label="Ship type" />
        <Field meta={fields.flag} label="Flag" />
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Adding…">Add the vessel</SubmitButton>
      </div>
    </Form>
  );
}

function EditVessel({
  vessel,
  reply,
}: {
  vessel: { _id: string; name: string; imo: string; ship_type: string; flag: string; active: boolean };
  reply: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm<VesselFormValues & { active?: string }>({
    id: `edit-${vessel._id}`,
    lastResult: reply,
    defaultValue: {
      name: vessel.name,
      imo: vessel.imo,
      ship_type: vessel.ship_type,
      flag: vessel.flag,
      active: vessel.active ? "on" : undefined,
    },
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="edit" />
      <input type="hidden" name="id" value={vessel._id} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <Field meta={fields.name} label="Name" />
      <Field meta={fields.imo} label="IMO number" />
      <Field meta={fields.ship_type} label="Ship type" />
      <Field meta={fields.flag} label="Flag" />
      <div className="field">
        <label>
          <input type="checkbox" name={fields.active.name} defaultChecked={vessel.active} /> Active (Part A may name it)
        </label>
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Saving…">Save</SubmitButton>
      </div>
    </Form>
  );
}

function DeleteVessel({
  vessel,
  reply,
}: {
  vessel: { _id: string; name: string };
  reply: SubmissionResult<string[]> | undefined;
}) {
  const [form] = useForm({ id: `delete-${vessel._id}`, lastResult: reply });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="id" value={vessel._id} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <SubmitButton className="button" pendingText="Deleting…">
        Delete <span className="visually-hidden">{vessel.name}</span>
      </SubmitButton>
    </Form>
  );
}

function AssignForm({
  vessels,
  people,
  reply,
}: {
  vessels: { _id: string; name: string }[];
  people: { _id: string; name: string }[];
  reply: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm<{ user_id: string; vessel_id: string; from: string; to?: string }>({
    id: "assign",
    lastResult: reply,
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="assign" />
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="stack">
        <SelectField
          meta={fields.user_id}
          label="Person"
          placeholder="Choose a person"
          options={people.map((p) => ({ value: p._id, label: p.name }))}
          required
        />
        <SelectField
          meta={fields.vessel_id}
          label="Vessel"
          placeholder="Choose a vessel"
          options={vessels.map((v) => ({ value: v._id, label: v.name }))}
          required
        />
        <Field meta={fields.from} label="From" type="date" required />
        <Field meta={fields.to} label="To" type="date" hint="Leave empty while the end is not known." />
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Saving…">Assign</SubmitButton>
      </div>
    </Form>
  );
}
