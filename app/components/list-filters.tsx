/**
 * The filter bar of the MOC, PCR and archive lists: a GET form (so filters live in the URL and work
 * without JavaScript) of labelled fields, with Apply and Reset.
 */
import { Link, useLocation } from "@remix-run/react";
import { Form } from "~/components/form";
import type { ReactNode } from "react";

/** A select's options as `[value, label]` pairs. */
export type Choices = readonly (readonly [value: string, label: string])[];

/**
 * `exportTo`: the list's /api path; the "Export CSV" link beside the buttons asks it for every row
 * the current filters select (the page number aside) as CSV.
 */
export function FilterForm({
  label,
  resetTo,
  exportTo,
  children,
}: {
  label: string;
  resetTo: string;
  exportTo?: string;
  children: ReactNode;
}) {
  const { search } = useLocation();
  const query = new URLSearchParams(search);
  query.delete("page");
  query.set("format", "csv");
  return (
    <Form method="get" className="card filters" role="search" aria-label={label}>
      {children}
      <div className="row">
        <button type="submit" className="button button-primary">
          Apply
        </button>
        <Link to={resetTo} className="button">
          Reset
        </Link>
        {exportTo ? (
          <a href={`${exportTo}?${query.toString()}`} className="button" download>
            Export CSV
          </a>
        ) : null}
      </div>
    </Form>
  );
}

export function SearchField({
  id,
  value,
  placeholder,
}: {
  id: string;
  value: string | undefined;
  placeholder: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Search</label>
      <input id={id} type="search" name="q" defaultValue={value ?? ""} placeholder={placeholder} />
    </div>
  );
}

/** A select; `any` adds a first, empty choice ("Any status") that leaves the filter off. */
export function FilterSelect({
  id,
  name,
  label,
  value,
  choices,
  any,
}: {
  id: string;
  name: string;
  label: string;
  value: string | undefined;
  choices: Choices;
  any?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ""}>
        {any ? <option value="">{any}</option> : null}
        {choices.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
