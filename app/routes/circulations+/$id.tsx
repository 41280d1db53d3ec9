import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { totalsText } from "~/components/circulations";
import { Form } from "~/components/form";
import { formatDate, formatDateTime } from "~/components/moc";
import { Pagination } from "~/components/pagination";
import { ErrorList, SubmitButton } from "~/components/submit";
import { departmentLabel } from "~/models/shared/labels";
import {
  CIRCULATION_TEXT_MAX,
  RECIPIENT_STATE_WORDS,
  RECIPIENTS_PAGE_SIZE,
} from "~/models/circulations/circulations.constants";
import { acknowledgeFormSchema } from "~/models/circulations/circulations.schema";
import { acknowledge, circulationPage, closeCirculation } from "~/models/circulations/circulations.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, readPageQuery, runForPage } from "~/utils/page.server";
import { requirePageUser } from "~/web/auth.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data
      ? `Circulation of ${data.tracking.circulation.record.label} · Change Management`
      : "Circulation · Change Management",
  },
];

const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).optional().catch(undefined) });

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const { page = 1 } = readPageQuery(request, pageQuery);
  const result = await runForPage(() => circulationPage(user, params.id ?? "", { page }));
  if (!result.ok) pageError(result.error);
  return { ...result.value, page, pageSize: RECIPIENTS_PAGE_SIZE };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const here = `/circulations/${params.id}`;
  const form = await request.formData();
  if (form.get("intent") === "close") {
    const result = await runForPage(() => closeCirculation(user, params.id ?? ""));
    if (!result.ok) {
      if (result.error.status === 404) pageError(result.error);
      return redirectWithFlash(here, { kind: "error", message: result.error.message });
    }
    return redirectWithFlash(here, { kind: "success", message: "The circulation is closed." });
  }
  const submission = parseWithZod(form, { schema: acknowledgeFormSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() =>
    acknowledge(user, { circulationId: params.id ?? "", comment: submission.value.comment }),
  );
  if (!result.ok) {
    if (result.error.status === 404) pageError(result.error);
    if (result.error.status === 403) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(here, {
    kind: "success",
    message: result.value.created
      ? "Thank you: your acknowledgement is recorded."
      : "You had acknowledged this already; nothing changed.",
  });
}

const printHref = (record: { kind: "moc" | "pcr"; href: string }) => `${record.href}/print`;

/** A circulation: what changed, who has read it (by vessel and rank, and each person), the questions; the acknowledge form. */
export default function CirculationPage() {
  const { tracking, me, mayClose, page, pageSize } = useLoaderData<typeof loader>();
  const { circulation, totals, byVesselAndRank, recipients, questions } = tracking;
  const record = circulation.record;
  const [form, fields] = useForm<z.input<typeof acknowledgeFormSchema>>({
    id: "acknowledge",
    lastResult: useActionData<typeof action>(),
  });
  const pages = Math.max(1, Math.ceil(totals.total / pageSize));
  const audience = [
    ...circulation.vessels.map((v) => v.name),
    ...circulation.departments.map((d) => `${departmentLabel(d)} department`),
  ].join(", ");
  return (
    <>
      <section className="card" aria-labelledby="circulation-title">
        <h2 id="circulation-title">
          Circulation of{" "}
          <Link to={record.href}>{record.title ? `${record.label} — ${record.title}` : record.label}</Link>
        </h2>
        <p style={{ overflowWrap: "anywhere", whiteSpace: "pre-line" }}>{circulation.note}</p>
        <dl className="answers">
          <dt>Due</dt>
          <dd>{formatDate(circulation.due)}</dd>
          <dt>To</dt>
          <dd>
            {audience}
            {circulation.ranks.length ? ` (ranks: ${circulation.ranks.join(", ")})` : ""}
          </dd>
          <dt>Circulated</dt>
          <dd>
            {formatDateTime(circulation.createdAt)} by {circulation.createdBy.name}
            {circulation.closedAt ? ` · closed ${formatDateTime(circulation.closedAt)}` : ""}
          </dd>
          <dt>Read and understood</dt>
          <dd>{totalsText(totals)}</dd>
        </dl>
        <p>
          <Link to={printHref(record)}>Read {record.label} (print view)</Link>
        </p>
        {/* The tracking's CSV, print view and PDF (issue 41): the same figures as this page. */}
        <nav aria-label="Export" className="export-links row">
          <a href={`/circulations/${circulation._id}/print`} className="button">
            Print the tracking
          </a>
          <a href={`/circulations/${circulation._id}/pdf`} className="button">
            Download PDF
          </a>
          <a href={`/circulations/${circulation._id}/csv`} className="button">
            Download CSV
          </a>
        </nav>
      </section>

      {me.recipient ? (
        <section className="card" aria-labelledby="acknowledge-title">
          <h2 id="acknowledge-title">Your acknowledgement</h2>
          {me.acknowledgedAt ? (
            <p className="callout">
              You acknowledged on {formatDateTime(me.acknowledgedAt)}.
              {me.comment ? ` Your comment: “${me.comment}”` : ""}
            </p>
          ) : (
            <Form method="post" {...getFormProps(form)} className="stack">
              <input type="hidden" name="intent" value="acknowledge" />
              <p>
                Read <Link to={printHref(record)}>{record.label}</Link> first, then confirm here.
              </p>
              <ErrorList id={form.errorId} errors={form.errors} />
              <div className="field">
                <label htmlFor={fields.comment.id}>A question or comment for the author (optional)</label>
                <textarea
                  {...getTextareaProps(fields.comment)}
                  key={fields.comment.key}
                  rows={3}
                  maxLength={CIRCULATION_TEXT_MAX}
                  aria-describedby={fields.comment.errors ? fields.comment.errorId : undefined}
                />
                <ErrorList id={fields.comment.errorId} errors={fields.comment.errors} />
              </div>
              <div className="form-actions">
                <SubmitButton pendingText="Recording…">I have read and understood this change</SubmitButton>
              </div>
            </Form>
          )}
        </section>
      ) : null}

      <section className="card" aria-labelledby="figures-title">
        <h2 id="figures-title">By vessel and rank</h2>
        <div className="table-wrap">
          <table className="stack-on-phone">
            <thead>
              <tr>
                <th scope="col">Vessel</th>
                <th scope="col">Rank</th>
                <th scope="col">People</th>
                <th scope="col">Acknowledged</th>
                <th scope="col">Waiting</th>
                <th scope="col">Overdue</th>
                <th scope="col">Left</th>
              </tr>
            </thead>
            <tbody>
              {byVesselAndRank.map((g) => (
                <tr key={`${g.vessel?._id ?? "office"}-${g.rank ?? ""}`}>
                  <td data-label="Vessel">{g.vessel ? g.vessel.name : "Office"}</td>
                  <td data-label="Rank">{g.rank ?? "—"}</td>
                  <td data-label="People">{g.total}</td>
                  <td data-label="Acknowledged">{g.acknowledged}</td>
                  <td data-label="Waiting">{g.waiting}</td>
                  <td data-label="Overdue">{g.overdue}</td>
                  <td data-label="Left the vessel">{g.left}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section className="card" aria-labelledby="recipients-title">
        <h2 id="recipients-title">People ({totals.total})</h2>
        <div className="table-wrap">
          <table className="stack-on-phone">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Vessel</th>
                <th scope="col">Due</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {recipients.map((r) => (
                <tr key={r.user._id}>
                  <td data-label="Name">
                    {r.user.name}
                    {r.user.rank ? <span className="muted">, {r.user.rank}</span> : null}
                  </td>
                  <td data-label="Vessel">{r.vessel ? r.vessel.name : "Office"}</td>
                  <td data-label="Due">{formatDate(r.due)}</td>
                  <td data-label="State">
                    <span className={r.state === "overdue" ? "overdue" : undefined}>
                      {RECIPIENT_STATE_WORDS[r.state]}
                    </span>
                    {r.acknowledgedAt ? <span className="muted"> {formatDate(r.acknowledgedAt)}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pagination page={page} pages={pages} />
      </section>

      <section className="card" aria-labelledby="questions-title">
        <h2 id="questions-title">Questions and comments</h2>
        {questions.length === 0 ? (
          <p className="empty">Nobody has asked anything.</p>
        ) : (
          <ul className="stack">
            {questions.map((q) => (
              <li key={`${q.user._id}-${q.at}`}>
                <strong>{q.user.name}</strong>
                {q.user.rank ? `, ${q.user.rank}` : ""}
                {q.vessel ? `, ${q.vessel.name}` : ""} <span className="muted">{formatDateTime(q.at)}</span>
                <p style={{ overflowWrap: "anywhere", whiteSpace: "pre-line", margin: "0.25rem 0 0" }}>{q.comment}</p>
              </li>
            ))}
          </ul>
        )}
      </section>

      {mayClose ? (
        <section className="card" aria-labelledby="close-title">
          <h2 id="close-title">Close the circulation</h2>
          <p className="muted">
            Once closed, nobody joining a vessel is added and nobody is reminded; people it reached may still
            acknowledge.
          </p>
          <Form method="post">
            <input type="hidden" name="intent" value="close" />
            <SubmitButton pendingText="Closing…">Close circulation</SubmitButton>
          </Form>
        </section>
      ) : null}
    </>
  );
}
