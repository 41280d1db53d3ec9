/**
 * Fields for the MOC forms. Their names are the API's own paths (`details-assessed.value`), so
 * conform parses a post into the body the API validates, with the same zod schema; errors of the
 * field and of its `value` are shown together, next to the control.
 */
import { useEffect, useRef, useState } from "react";
import { ErrorList } from "./submit";
import { departmentLabel } from "./moc";
import { htmlToPlainText, PLAIN_TEXT_FIELD } from "~/utils/plain-text";
import { useHydrated } from "./use-hydrated";

/** The part of conform's field metadata these fields read (any field shape fits). */
type Meta = {
  id: string;
  name: string;
  errorId: string;
  descriptionId: string;
  errors?: string[];
  initialValue?: unknown;
  key?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- nested metadata of any shape
  getFieldset?: () => any;
};

/** The fields inside an object field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- nested metadata of any shape
export const fieldset = (meta: Meta): any => {
  if (!meta.getFieldset) throw new Error(`${meta.name} has no nested fields`);
  return meta.getFieldset();
};

export type ValueField = {
  id: string;
  name: string;
  errorId: string;
  descriptionId: string;
  errors: string[];
  initial: unknown;
  key: string | undefined;
};

/** The `value` inside a `{ value }` field (or the field itself when `direct`). */
export function valueField(field: Meta | undefined, direct = false): ValueField {
  if (!field) throw new Error("valueField: no such form field");
  const meta = field;
  const inner: Meta = direct ? meta : fieldset(meta).value;
  const errors = [...(direct ? [] : (meta.errors ?? [])), ...(inner.errors ?? [])];
  return {
    id: inner.id,
    name: inner.name,
    errorId: inner.errorId,
    descriptionId: inner.descriptionId,
    errors,
    initial: inner.initialValue,
    key: inner.key,
  };
}

const describedBy = (f: ValueField, hint?: string) =>
  [f.errors.length ? f.errorId : null, hint ? f.descriptionId : null].filter(Boolean).join(" ") || undefined;

function Hint({ f, hint }: { f: ValueField; hint?: string }) {
  return hint ? (
    <p id={f.descriptionId} className="hint">
      {hint}
    </p>
  ) : null;
}

export function YesNoField({
  meta,
  label,
  hint,
  direct,
  yes = "Yes",
  no = "No",
}: {
  meta: Meta | undefined;
  label: string;
  hint?: string;
  direct?: boolean;
  yes?: string;
  no?: string;
}) {
  const f = valueField(meta, direct);
  return (
    <fieldset
      className="field"
      aria-describedby={describedBy(f, hint)}
      aria-invalid={f.errors.length ? true : undefined}
    >
      <legend>{label}</legend>
      <Hint f={f} hint={hint} />
      <div className="choice-row">
        {(["yes", "no"] as const).map((answer) => (
          <label key={answer}>
            <input type="radio" name={f.name} value={answer} defaultChecked={f.initial === answer} key={f.key} />
            {answer === "yes" ? yes : no}
          </label>
        ))}
      </div>
      <ErrorList id={f.errorId} errors={f.errors} />
    </fieldset>
  );
}

export function TextField({
  meta,
  label,
  type = "text",
  hint,
  direct,
  multiline,
}: {
  meta: Meta | undefined;
  label: string;
  type?: "text" | "date" | "url";
  hint?: string;
  direct?: boolean;
  multiline?: boolean;
}) {
  const f = valueField(meta, direct);
  const common = {
    id: f.id,
    name: f.name,
    defaultValue: typeof f.initial === "string" ? f.initial : "",
    "aria-invalid": f.errors.length ? true : undefined,
    "aria-describedby": describedBy(f, hint),
  };
  return (
    <div className="field">
      <label htmlFor={f.id}>{label}</label>
      {multiline ? <textarea {...common} key={f.key} rows={3} /> : <input {...common} key={f.key} type={type} />}
      <Hint f={f} hint={hint} />
      <ErrorList id={f.errorId} errors={f.errors} />
    </div>
  );
}

export type UserOption = { _id: string; name: string; department: string };

/** A person picker; the value posts as `<name>` (a user id), or `<name>._id` with `asRef`. */
export function UserSelectField({
  meta,
  label,
  users,
  asRef,
  hint,
}: {
  meta: Meta | undefined;
  label: string;
  users: UserOption[];
  asRef?: boolean;
  hint?: string;
}) {
  const outer = valueField(meta);
  const f: ValueField = asRef
    ? (() => {
        const inner: Meta = fieldset(fieldset(meta!).value)._id;
        return {
          ...outer,
          id: inner.id,
          name: inner.name,
          errors: [...outer.errors, ...(inner.errors ?? [])],
          initial: inner.initialValue,
        };
      })()
    : outer;
  return (
    <div className="field">
      <label htmlFor={f.id}>{label}</label>
      <select
        id={f.id}
        name={f.name}
        key={f.key}
        defaultValue={typeof f.initial === "string" ? f.initial : ""}
        aria-invalid={f.errors.length ? true : undefined}
        aria-describedby={describedBy(f, hint)}
      >
        <option value="">Choose a person</option>
        {users.map((u) => (
          <option key={u._id} value={u._id}>
            {u.name} ({departmentLabel(u.department)})
          </option>
        ))}
      </select>
      <Hint f={f} hint={hint} />
      <ErrorList id={f.errorId} errors={f.errors} />
    </div>
  );
}

export function CheckboxGroupField({
  meta,
  label,
  options,
  direct,
}: {
  meta: Meta | undefined;
  label: string;
  options: readonly { value: string; label: string }[];
  direct?: boolean;
}) {
  const f = valueField(meta, direct);
  const selected = Array.isArray(f.initial)
    ? (f.initial as string[])
    : typeof f.initial === "string"
      ? [f.initial]
      : [];
  return (
    <fieldset className="field" aria-describedby={describedBy(f)}>
      <legend>{label}</legend>
      <div className="choice-row">
        {options.map((o) => (
          <label key={o.value}>
            <input
              type="checkbox"
              name={f.name}
              value={o.value}
              defaultChecked={selected.includes(o.value)}
              key={f.key}
            />
            {o.label}
          </label>
        ))}
      </div>
      <ErrorList id={f.errorId} errors={f.errors} />
    </fieldset>
  );
}

const TOOLBAR: { command: string; label: string; text: string; value?: string }[] = [
  { command: "bold", label: "Bold", text: "B" },
  { command: "italic", label: "Italic", text: "I" },
  { command: "underline", label: "Underline", text: "U" },
  { command: "insertUnorderedList", label: "Bulleted list", text: "• List" },
  { command: "insertOrderedList", label: "Numbered list", text: "1. List" },
  { command: "formatBlock", label: "Heading", text: "H", value: "h3" },
  { command: "formatBlock", label: "Paragraph", text: "¶", value: "p" },
];

/**
 * Rich text: a plain textarea without JavaScript, whose text the action turns into HTML as typed
 * (`PLAIN_TEXT_FIELD`: line breaks kept, markup shown as text), and with it a small editor that
 * writes its HTML into that same field. The server sanitises either way.
 */
export function RichTextField({
  meta,
  label,
  hint,
  direct,
}: {
  meta: Meta | undefined;
  label: string;
  hint?: string;
  direct?: boolean;
}) {
  const f = valueField(meta, direct);
  const initial = typeof f.initial === "string" ? f.initial : "";
  const enhanced = useHydrated();
  const [html, setHtml] = useState(initial);
  const surface = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (enhanced && surface.current && surface.current.innerHTML !== html) surface.current.innerHTML = html;
    // Only when the editor appears: afterwards the surface is the source of truth.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enhanced]);
  const labelId = `${f.id}-label`;
  if (!enhanced) {
    return (
      <div className="field">
        <label htmlFor={f.id} id={labelId}>
          {label}
        </label>
        <input type="hidden" name={PLAIN_TEXT_FIELD} value={f.name} />
        <textarea
          id={f.id}
          name={f.name}
          defaultValue={htmlToPlainText(initial)}
          rows={6}
          aria-invalid={f.errors.length ? true : undefined}
          aria-describedby={describedBy(f, hint)}
        />
        <Hint f={f} hint={hint} />
        <ErrorList id={f.errorId} errors={f.errors} />
      </div>
    );
  }
  return (
    <div className="field">
      <span className="field-label" id={labelId}>
        <label htmlFor={f.id}>{label}</label>
      </span>
      <div className="editor-toolbar" role="toolbar" aria-label={`${label} formatting`}>
        {TOOLBAR.map((b) => (
          <button
            key={b.label}
            type="button"
            aria-label={b.label}
            title={b.label}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => {
              surface.current?.focus();
              document.execCommand(b.command, false, b.value);
              setHtml(surface.current?.innerHTML ?? "");
            }}
          >
            {b.text}
          </button>
        ))}
      </div>
      <div
        ref={surface}
        id={f.id}
        className="editor-surface"
        contentEditable
        role="textbox"
        aria-multiline="true"
        aria-labelledby={labelId}
        aria-invalid={f.errors.length ? true : undefined}
        aria-describedby={describedBy(f, hint)}
        tabIndex={0}
        onInput={(e) => setHtml(e.currentTarget.innerHTML)}
        suppressContentEditableWarning
      />
      <input type="hidden" name={f.name} value={html} />
      <Hint f={f} hint={hint} />
      <ErrorList id={f.errorId} errors={f.errors} />
    </div>
  );
}

export function SelectValueField({
  meta,
  label,
  options,
  placeholder,
}: {
  meta: Meta | undefined;
  label: string;
  options: readonly { value: string; label: string }[];
  placeholder: string;
}) {
  const f = valueField(meta);
  return (
    <div className="field">
      <label htmlFor={f.id}>{label}</label>
      <select
        id={f.id}
        name={f.name}
        key={f.key}
        defaultValue={typeof f.initial === "string" ? f.initial : ""}
        aria-invalid={f.errors.length ? true : undefined}
        aria-describedby={describedBy(f)}
      >
        <option value="">{placeholder}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorList id={f.errorId} errors={f.errors} />
    </div>
  );
}
