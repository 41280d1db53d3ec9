/**
 * /admin/references: the types of external reference a record may carry (issue 42,
 * docs/decisions/057-record-links-and-references.md), in the order they are offered. Admins add,
 * rename, set a URL template for, move, deactivate and reactivate them; each change is in the audit
 * trail (the settings chain), shown below the list. Plain forms, one per type, that work without
 * JavaScript (the shape of /admin/ranks).
 */
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ListChanges, OrderedRowButtons, RenameField } from "~/components/ordered-list";
import { SubmitButton } from "~/components/forms";
import { ErrorList } from "~/components/submit";
import { historyOf } from "~/models/audit/audit.server";
import { canManageReferenceTypes } from "~/models/authz/authz.server";
import {
  REFERENCE_PLACEHOLDER,
  REFERENCE_TEMPLATE_MAX,
  REFERENCE_TYPE_NAME_MAX,
  REFERENCE_TYPES_RECORD,
} from "~/models/records/references.constants";
import { changeReferenceTypes, listReferenceTypes } from "~/models/records/references.server";
import type { ReferenceTypeAction } from "~/models/records/references.schema";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";
import { requirePageUserWho } from "~/web/auth.server";

export const meta: MetaFunction = () => [{ title: "Reference types · Administration · Change Management" }];

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can change the reference types.";

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUserWho(request, canManageReferenceTypes, REFUSAL);
  const [types, history] = await Promise.all([listReferenceTypes(), historyOf("settings", REFERENCE_TYPES_RECORD)]);
  return { types, history: history.slice(-10).reverse() };
}

/** A refused change: which form (the type's id, or "add"), which field, what was typed, and why. */
type Refusal = { form: string; field: "name" | "template"; name?: string; template?: string; message: string };

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageReferenceTypes, REFUSAL);
  const form = Object.fromEntries(await request.formData());
  const which = typeof form.type === "string" && form.intent !== "add" ? form.type : "add";
  const text = (key: string) => (typeof form[key] === "string" ? form[key] : undefined);
  const result = await runForPage(() => changeReferenceTypes(actor, form as unknown as ReferenceTypeAction));
  if (!result.ok) {
    const path = result.error.issues?.[0]?.path;
    return data<Refusal>(
      {
        form: which,
        field: path === "template" || (path !== "name" && form.intent === "template") ? "template" : "name",
        name: text("name"),
        template: text("template"),
        message: result.error.message,
      },
      { status: result.error.status },
    );
  }
  return redirectWithFlash("/admin/references", { kind: "success", message: result.value });
}

/** A field's error list, when the refusal is about it. */
const FieldError = ({ id, message }: { id: string; message: string | undefined }) => (
  <ErrorList id={id} errors={message ? [message] : null} />
);

export default function ReferenceTypesPage() {
  const { types, history } = useLoaderData<typeof loader>();
  const refusal = useActionData<typeof action>();
  const errorOf = (form: string, field: Refusal["field"]) =>
    refusal && refusal.form === form && refusal.field === field ? refusal : undefined;
  const addName = errorOf("add", "name");
  const addTemplate = errorOf("add", "template");
  const typed = refusal?.form === "add" ? refusal : undefined;
  return (
    <>
      <p>
        <Link to="/admin">← Administration</Link>
      </p>
      <h1>Reference types</h1>
      <p className="muted">
        The kinds of outside record a MOC, PCR, archive record or year-end review can point at (an incident, a PMS work
        order…). With a URL template such as <code>https://pms.example/wo/{REFERENCE_PLACEHOLDER}</code>, a reference of
        the type is a link, its number put in place of <code>{REFERENCE_PLACEHOLDER}</code>. A deactivated type stays on
        the references that carry it but is no longer offered.
      </p>
      <section className="card" aria-labelledby="types-title">
        <h2 id="types-title">The list ({types.length})</h2>
        {types.length === 0 ? (
          <p className="empty">There are no reference types yet.</p>
        ) : (
          <ol className="waiting-list">
            {types.map((type, i) => {
              const nameError = errorOf(type.id, "name");
              const templateError = errorOf(type.id, "template");
              const nameId = `type-name-${i}`;
              const templateId = `type-template-${i}`;
              return (
                <li key={type.id}>
                  <div className="break-anywhere">
                    <strong>{type.name}</strong> {type.active ? null : <span className="badge">Not offered</span>}
                    <br />
                    <span className="muted">
                      {type.uses === 0
                        ? "On no record"
                        : `${type.uses} ${type.uses === 1 ? "reference" : "references"}`}
                      {" · "}
                      {type.urlTemplate ? `Links to ${type.urlTemplate}` : "No link"}
                    </span>
                  </div>
                  <Form method="post" className="row">
                    <input type="hidden" name="type" value={type.id} />
                    <RenameField
                      id={nameId}
                      name={type.name}
                      typed={nameError?.name}
                      error={nameError?.message}
                      maxLength={REFERENCE_TYPE_NAME_MAX}
                    />
                    <OrderedRowButtons name={type.name} index={i} count={types.length} active={type.active} />
                  </Form>
                  <Form method="post" className="row">
                    <input type="hidden" name="type" value={type.id} />
                    <input type="hidden" name="intent" value="template" />
                    <div className="field">
                      <label htmlFor={templateId}>
                        URL template<span className="visually-hidden"> for {type.name}</span> (empty: no link)
                      </label>
                      <input
                        id={templateId}
                        name="template"
                        type="text"
                        inputMode="url"
                        placeholder={`https://…/${REFERENCE_PLACEHOLDER}`}
                        defaultValue={templateError?.template ?? type.urlTemplate ?? ""}
                        maxLength={REFERENCE_TEMPLATE_MAX}
                        aria-invalid={templateError ? true : undefined}
                        aria-describedby={templateError ? `${templateId}-error` : undefined}
                      />
                      <FieldError id={`${templateId}-error`} message={templateError?.message} />
                    </div>
                    <button type="submit" className="button button-small">
                      Set the link<span className="visually-hidden"> of {type.name}</span>
                    </button>
                  </Form>
                </li>
              );
            })}
          </ol>
        )}
      </section>
      <section className="card" aria-labelledby="add-type-title">
        <h2 id="add-type-title">Add a reference type</h2>
        {/* A fresh form after each addition (the last one's name and error are gone). */}
        <Form method="post" className="row" key={types.length}>
          <input type="hidden" name="intent" value="add" />
          <div className="field">
            <label htmlFor="new-type">Name</label>
            <input
              id="new-type"
              name="name"
              maxLength={REFERENCE_TYPE_NAME_MAX}
              required
              defaultValue={typed?.name ?? ""}
              aria-invalid={addName ? true : undefined}
              aria-describedby={addName ? "new-type-error" : undefined}
            />
            <FieldError id="new-type-error" message={addName?.message} />
          </div>
          <div className="field">
            <label htmlFor="new-type-template">URL template (optional)</label>
            <input
              id="new-type-template"
              name="template"
              type="text"
              inputMode="url"
              placeholder={`https://pms.example/wo/${REFERENCE_PLACEHOLDER}`}
              maxLength={REFERENCE_TEMPLATE_MAX}
              defaultValue={typed?.template ?? ""}
              aria-invalid={addTemplate ? true : undefined}
              aria-describedby={addTemplate ? "new-type-template-error" : undefined}
            />
            <FieldError id="new-type-template-error" message={addTemplate?.message} />
          </div>
          <SubmitButton pendingText="Adding…">Add at the end</SubmitButton>
        </Form>
      </section>
      <ListChanges id="types-history-title" history={history} />
    </>
  );
}
