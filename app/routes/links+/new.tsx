// /links/new?from=<kind>:<id>&q=...: link a record to another (issue 42,
// docs/decisions/057-record-links-and-references.md). A GET search box over the records the reader
// may read (the search model's own authorization), each found record with a kind select and a Link
// button: plain forms, with or without JavaScript; a refusal comes back by its record's row.
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form as SearchForm, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { LINKS_ANCHOR } from "~/components/record-links";
import { SubmitButton } from "~/components/submit";
import { LINK_CHOICES, linkOfChoice } from "~/models/records/record-links.constants";
import { linkRecords } from "~/models/records/record-links.server";
import { describeRecord, readRecordRef, type RecordRef } from "~/models/records/record-refs.server";
import { CONTROL_CHARACTERS, SEARCH_MAX_LENGTH } from "~/models/records/search.constants";
import { searchQuerySchema } from "~/models/records/search.schema";
import { getDb } from "~/utils/db.server";
import { Forbidden, Invalid, NotFound } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { pageError, runForPage } from "~/utils/page.server";
import { requirePageUser } from "~/web/auth.server";
import { linkCandidates } from "~/web/record-links-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Link ${data.from.label} · Change Management` : "Link a record · Change Management" },
];

/** The record linked from (`from`, of the address or the form), which the reader must read (400, 403, 404 pages). */
async function fromRecord(request: Request, text: unknown) {
  const user = await requirePageUser(request);
  const read = readRecordRef(text);
  if (!read.ok) pageError(new Invalid(read.message, [{ path: "from", message: read.message }]));
  const from = await describeRecord(getDb(), user, read.ref);
  if (!from) pageError(new NotFound("No such record"));
  if (!from.readable) pageError(new Forbidden("You may not read this record"));
  return { user, ref: read.ref, from };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const { user, ref, from } = await fromRecord(request, params.get("from"));
  const record = { ref: from.ref, label: from.label, title: from.title, path: from.path };
  const raw = params.get("q") ?? "";
  if (raw.trim() === "") return { from: record, q: "", error: null, candidates: null };
  const parsed = searchQuerySchema.safeParse({ q: raw });
  if (!parsed.success) {
    const shown = raw.replace(CONTROL_CHARACTERS, " ").slice(0, SEARCH_MAX_LENGTH);
    return data({ from: record, q: shown, error: parsed.error.issues[0]!.message, candidates: null }, { status: 400 });
  }
  return { from: record, q: parsed.data.q, error: null, candidates: await linkCandidates(user, parsed.data.q, ref) };
}

/** A refused link, by the record it was to: the kind's error by its select, any other above its button. */
type Refusal = { to: string; kind?: string; form?: string };

export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData();
  const { user, ref, from } = await fromRecord(request, form.get("from"));
  const toText = String(form.get("to") ?? "");
  const refuse = (refusal: Omit<Refusal, "to">) => data({ refusal: { to: toText, ...refusal } }, { status: 400 });
  const to = readRecordRef(toText);
  if (!to.ok) return refuse({ form: to.message });
  const link = linkOfChoice(String(form.get("kind") ?? ""), ref, to.ref as RecordRef);
  if (!link) return refuse({ kind: "Choose how the records are linked" });
  const result = await runForPage(() => linkRecords(getDb(), user, link));
  if (!result.ok) {
    return data({ refusal: { to: toText, form: result.error.message } }, { status: result.error.status });
  }
  return redirectWithFlash(`${from.path}#${LINKS_ANCHOR}`, {
    kind: "success",
    message: result.value.created ? "The records are linked." : "The records were already linked this way.",
  });
}

export default function NewLink() {
  const { from, q, error, candidates } = useLoaderData<typeof loader>();
  const refusal = (useActionData<typeof action>() as { refusal?: Refusal } | undefined)?.refusal;
  const name = from.title ? `${from.label} — ${from.title}` : from.label;
  return (
    <section className="card" aria-labelledby="new-link-title">
      <h1 id="new-link-title">Link a record</h1>
      <p>
        From <Link to={from.path}>{name}</Link>
      </p>
      <SearchForm method="get" className="row" role="search" aria-label="Find the record to link">
        <input type="hidden" name="from" value={from.ref} />
        <div className="field">
          <label htmlFor="link-q">Find a MOC, PCR, archive record or review</label>
          <input
            id="link-q"
            name="q"
            type="search"
            defaultValue={q}
            maxLength={SEARCH_MAX_LENGTH}
            placeholder="A number such as 14-2026, or words of its title"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "link-q-error" : undefined}
          />
          {error ? (
            <ul className="field-errors" id="link-q-error">
              <li>{error}</li>
            </ul>
          ) : null}
        </div>
        <button type="submit" className="button">
          Find
        </button>
      </SearchForm>
      {candidates === null ? null : candidates.length === 0 ? (
        <p className="empty">No record you may read matches “{q}”.</p>
      ) : (
        <ul className="waiting-list" aria-label="Records found">
          {candidates.map((c, i) => {
            const refused = refusal?.to === c.ref ? refusal : undefined;
            const kindId = `link-kind-${i}`;
            return (
              <li key={c.ref}>
                <div className="break-anywhere">
                  <Link to={c.path}>{c.label}</Link>
                  {c.title ? ` — ${c.title}` : ""}
                </div>
                <Form method="post" className="row">
                  <input type="hidden" name="from" value={from.ref} />
                  <input type="hidden" name="to" value={c.ref} />
                  {refused?.form ? (
                    <p className="field-errors" role="alert">
                      {refused.form}
                    </p>
                  ) : null}
                  <div className="field">
                    <label htmlFor={kindId}>
                      {from.label} is<span className="visually-hidden"> … {c.label}</span>
                    </label>
                    <select
                      id={kindId}
                      name="kind"
                      aria-invalid={refused?.kind ? true : undefined}
                      aria-describedby={refused?.kind ? `${kindId}-error` : undefined}
                    >
                      {LINK_CHOICES.map((choice) => (
                        <option key={choice.words} value={choice.words}>
                          {choice.words}
                        </option>
                      ))}
                    </select>
                    {refused?.kind ? (
                      <ul className="field-errors" id={`${kindId}-error`}>
                        <li>{refused.kind}</li>
                      </ul>
                    ) : null}
                  </div>
                  <SubmitButton>
                    Link<span className="visually-hidden"> {c.label}</span>
                  </SubmitButton>
                </Form>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
