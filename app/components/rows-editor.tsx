import {
  getFormProps,
  getInputProps,
  getTextareaProps,
  type DefaultValue,
  type SubmissionResult,
} from "@conform-to/react";
import { Link } from "@remix-run/react";
import { Form } from "~/components/form";
import type { z } from "zod";
import type { SchemaLoader } from "./lazy-validation";
import { useSchemaForm } from "./schema-form";
import type { UserOption } from "./fields";
import { DefaultSubmit, ErrorList, SubmitButton } from "./submit";

export type Column = {
  key: string;
  label: string;
  /** `rank`: a risk matrix rank, 1-5 or none (docs/decisions/037-risk-ranking-and-approvals.md). */
  kind: "text" | "lines" | "date" | "owner" | "done" | "rank";
};

type RowsShape = { items: Record<string, unknown>[] };

/**
 * A table of editable rows. "Add a row" and "Remove" are submit buttons carrying conform's list
 * intents, so they work without JavaScript (the server answers with the changed list, unsaved)
 * and instantly with it.
 */
export function RowsEditor<S extends z.ZodType>({
  id,
  schema,
  columns,
  users,
  lastResult,
  defaultItems,
  mocId,
  noun,
  plural,
  frozen,
  stackOnPhone,
}: {
  id: string;
  /** The rows' schema, loaded when the form is first used (app/components/lazy-validation.ts). */
  schema: SchemaLoader<S>;
  columns: Column[];
  users: UserOption[];
  lastResult: SubmissionResult<string[]> | null | undefined;
  defaultItems: Record<string, unknown>[];
  mocId: string;
  noun: string;
  /** When not `noun` + "s" ("categories"). */
  plural?: string;
  /**
   * Approved content is frozen (docs/decisions/034): the rows stay as they are (no adding or
   * removing) and only the done marks of the rows with these ids can change; the rest is shown
   * and posted unchanged.
   */
  frozen?: { markable: readonly string[] };
  /** One row as a block of labelled fields on a phone (many columns: the impact assessment's ranks). */
  stackOnPhone?: boolean;
}) {
  // The columns are data, so the rows' fields are read by name from a looser shape than the schema's.
  const [form, fields] = useSchemaForm<S, RowsShape>({
    id,
    schema,
    lastResult,
    // Stored rows carry values conform's DefaultValue does not name (a "lines" column's list, a
    // rank's number, a cancellation's record); conform flattens whatever it is given into fields.
    defaultValue: { items: defaultItems } as DefaultValue<RowsShape>,
  });
  const rows = fields.items.getFieldList();
  return (
    <Form method="post" {...getFormProps(form)} className="card">
      <DefaultSubmit>Save</DefaultSubmit>
      <ErrorList id={form.errorId} errors={form.errors} />
      <ErrorList id={fields.items.errorId} errors={fields.items.errors} />
      {rows.length === 0 ? <p className="empty">No {plural ?? `${noun}s`} yet.</p> : null}
      <div className="table-wrap">
        <table className={stackOnPhone ? "rows-table stack-on-phone" : "rows-table"}>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.key} scope="col">
                  {c.label}
                </th>
              ))}
              <th scope="col">
                <span className="visually-hidden">{frozen ? "Row" : "Remove"}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const cells = row.getFieldset();
              return (
                <tr key={row.key}>
                  {columns.map((c) => {
                    const meta = cells[c.key]!;
                    const label = `${c.label}, ${noun} ${index + 1}`;
                    const cell = stackOnPhone ? { "data-label": c.label } : {};
                    const errors = <ErrorList id={meta.errorId} errors={meta.errors} />;
                    const rowId = (cells._id?.initialValue as string | undefined) ?? "";
                    if (frozen && !(c.kind === "done" && frozen.markable.includes(rowId))) {
                      const value = (meta.initialValue as string | undefined) ?? "";
                      const shown =
                        c.kind === "done"
                          ? value
                            ? "Done"
                            : "Open"
                          : c.kind === "owner"
                            ? (users.find((u) => u._id === value)?.name ?? "Nobody yet")
                            : value || "—";
                      return (
                        <td key={c.key} {...cell}>
                          {shown}
                          {/* Posted unchanged: an empty one as an empty field would be, an open mark as an unticked box. */}
                          {value || c.kind !== "done" ? <input type="hidden" name={meta.name} value={value} /> : null}
                          {errors}
                        </td>
                      );
                    }
                    if (c.kind === "lines") {
                      return (
                        <td key={c.key} {...cell}>
                          <textarea
                            {...getTextareaProps(meta)}
                            key={meta.key}
                            aria-label={label}
                            rows={3}
                            defaultValue={
                              Array.isArray(meta.initialValue)
                                ? (meta.initialValue as string[]).join("\n")
                                : ((meta.initialValue as string) ?? "")
                            }
                          />
                          {errors}
                        </td>
                      );
                    }
                    if (c.kind === "owner") {
                      return (
                        <td key={c.key} {...cell}>
                          <select
                            name={meta.name}
                            id={meta.id}
                            key={meta.key}
                            aria-label={label}
                            defaultValue={(meta.initialValue as string) ?? ""}
                          >
                            <option value="">Nobody yet</option>
                            {users.map((u) => (
                              <option key={u._id} value={u._id}>
                                {u.name}
                              </option>
                            ))}
                          </select>
                          {errors}
                        </td>
                      );
                    }
                    if (c.kind === "rank") {
                      return (
                        <td key={c.key} {...cell}>
                          <select
                            name={meta.name}
                            id={meta.id}
                            key={meta.key}
                            aria-label={label}
                            aria-invalid={meta.errors ? true : undefined}
                            aria-describedby={meta.errors ? meta.errorId : undefined}
                            defaultValue={String(meta.initialValue ?? "")}
                          >
                            <option value="">—</option>
                            {[1, 2, 3, 4, 5].map((n) => (
                              <option key={n} value={n}>
                                {n}
                              </option>
                            ))}
                          </select>
                          {errors}
                        </td>
                      );
                    }
                    if (c.kind === "done") {
                      return (
                        <td key={c.key} {...cell}>
                          <input {...getInputProps(meta, { type: "checkbox" })} key={meta.key} aria-label={label} />
                        </td>
                      );
                    }
                    return (
                      <td key={c.key} {...cell}>
                        <input
                          {...getInputProps(meta, { type: c.kind === "date" ? "date" : "text" })}
                          key={meta.key}
                          aria-label={label}
                        />
                        {errors}
                      </td>
                    );
                  })}
                  <td>
                    {/* Keeps each row's id, so edits update rows rather than replace them. */}
                    <input
                      type="hidden"
                      name={`${row.name}._id`}
                      defaultValue={(cells._id?.initialValue as string) ?? ""}
                    />
                    {frozen ? null : (
                      <button
                        className="button button-small"
                        {...form.remove.getButtonProps({ name: fields.items.name, index })}
                        aria-label={`Remove ${noun} ${index + 1}`}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="form-actions">
        {frozen ? null : (
          <button className="button" {...form.insert.getButtonProps({ name: fields.items.name })}>
            Add {/^[aeiou]/i.test(noun) ? "an" : "a"} {noun}
          </button>
        )}
        <SubmitButton pendingText="Saving…">Save</SubmitButton>
        <Link to={`/mocs/${mocId}`} className="button">
          Cancel
        </Link>
      </div>
    </Form>
  );
}
