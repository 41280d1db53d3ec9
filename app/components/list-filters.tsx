/**
 * The filter bar of the MOC, PCR and archive lists: a GET form (so filters live in the URL and work
 * without JavaScript) of labelled fields, with Apply and Reset.
 */
import { Form, Link } from "@remix-run/react";
import type { ReactNode } from "react";

/** A select's options as `[value, label]` pairs. */
export type Choices = readonly (readonly [value: string, label: string])[];

export function FilterForm({ label, resetTo, children }: { label: string; resetTo: string; children: ReactNode }) {
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
