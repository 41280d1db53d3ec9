import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { Pagination } from "~/components/pagination";
import { z } from "zod";
import { SubmitButton } from "~/components/submit";
import { EMAIL_STATUSES } from "#db/schema/enums";
import { canSeeOutbox } from "~/models/authz/authz.server";
import { listOutbox, retryMessage } from "~/models/messages/email.server";
import { requirePageUserWho } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { refuseControlCharacters } from "~/models/shared/text-rules";
import { readPageQuery, runForPage } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Outbox · Change Management" }];

const PAGE_SIZE = 50;

const filterSchema = z.object({
  status: z.enum(EMAIL_STATUSES).optional().catch(undefined),
  // Control characters are a 400 with a message (docs/decisions/028-untrusted-text-and-sign-in-links.md).
  to: refuseControlCharacters(z.string().max(254).optional().catch(undefined)),
  batch: z
    .string()
    .regex(/^batch-[0-9a-f]{64}(\.[ab])*$/)
    .optional()
    .catch(undefined),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can see the outbox.";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requirePageUserWho(request, canSeeOutbox, REFUSAL);
  const filter = readPageQuery(request, filterSchema);
  const { messages, total } = await listOutbox(actor, {
    status: filter.status,
    recipient: filter.to,
    batch: filter.batch,
    limit: PAGE_SIZE,
    offset: (filter.page - 1) * PAGE_SIZE,
  });
  return {
    filter,
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    messages: messages.map((m) => ({
      id: m.id,
      to: m.toEmail,
      subject: m.subject,
      text: m.text,
      status: m.status,
      transport: m.transport,
      attempts: m.attempts,
      lastError: m.lastError,
      providerId: m.providerId,
      batchKey: m.batchKey,
      batchSize: m.batchSize,
      batchOpen: m.batchOpen,
      batchedAt: m.batchedAt?.toISOString() ?? null,
      createdAt: m.createdAt.toISOString(),
      sentAt: m.sentAt?.toISOString() ?? null,
    })),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canSeeOutbox, REFUSAL);
  const form = await request.formData();
  const parsed = z.object({ intent: z.literal("retry"), messageId: z.uuid() }).safeParse(Object.fromEntries(form));
  const back = `/admin/outbox${new URL(request.url).search}`;
  if (!parsed.success) return redirectWithFlash(back, { kind: "error", message: "That action was not understood." });
  const result = await runForPage(() => retryMessage(actor, parsed.data.messageId));
  if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
  return redirectWithFlash(back, { kind: "success", message: "The message is queued again." });
}

const STATUS_LABEL: Record<string, { label: string; badge: string }> = {
  queued: { label: "Queued", badge: "badge-info" },
  sending: { label: "Sending", badge: "badge-info" },
  sent: { label: "Sent", badge: "badge-success" },
  failed: { label: "Failed", badge: "badge-danger" },
};

const shortBatch = (key: string) => key.replace(/^batch-/, "").slice(0, 12);

/** What the provider answered for this message in its batch. */
function batchResult(m: { status: string; batchOpen: boolean; providerId: string | null; transport: string | null }) {
  if (m.batchOpen) return "Awaiting the provider's answer; resent as this batch";
  if (m.status === "sent") {
    return m.transport === "outbox"
      ? "Accepted into the local outbox"
      : `Accepted, provider id ${m.providerId ?? "none"}`;
  }
  if (m.status === "failed") return "Rejected on its own; the rest of the batch went out";
  return "Queued again";
}

const formatTime = (iso: string) => new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC";

export default function Outbox() {
  const { messages, filter, total, pages } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Outbox</h1>
          <p className="muted">
            Every email the service sent or is sending: {total} {total === 1 ? "message" : "messages"}.
          </p>
          {filter.batch ? (
            <p>
              Showing batch <code>{shortBatch(filter.batch)}</code>. <Link to="/admin/outbox">Show every message</Link>
            </p>
          ) : null}
        </div>
        <Form method="get" className="row" role="search">
          <div className="field">
            <label htmlFor="outbox-status">Status</label>
            <select id="outbox-status" name="status" defaultValue={filter.status ?? ""}>
              <option value="">Any status</option>
              {EMAIL_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABEL[s]?.label ?? s}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="outbox-to">Recipient</label>
            <input id="outbox-to" type="search" name="to" defaultValue={filter.to ?? ""} placeholder="Email address" />
          </div>
          <button type="submit" className="button">
            Filter
          </button>
        </Form>
      </div>
      <div className="card table-wrap">
        {messages.length === 0 ? (
          <p className="empty">No messages match.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Email messages</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Recipient</th>
                <th scope="col">Subject and message</th>
                <th scope="col">Status</th>
                <th scope="col">Batch</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => {
                const status = STATUS_LABEL[m.status] ?? { label: m.status, badge: "" };
                return (
                  <tr key={m.id}>
                    <td data-label="Created">{formatTime(m.createdAt)}</td>
                    <td data-label="Recipient" className="break-anywhere">
                      {m.to}
                    </td>
                    <td data-label="Subject and message">
                      <details>
                        <summary>{m.subject}</summary>
                        <pre className="email-body">{m.text}</pre>
                      </details>
                    </td>
                    <td data-label="Status">
                      <span className={`badge ${status.badge}`}>{status.label}</span>
                      <br />
                      <span className="muted">
                        {m.attempts} {m.attempts === 1 ? "attempt" : "attempts"}
                        {m.transport ? ` · ${m.transport === "outbox" ? "local outbox" : "Resend"}` : ""}
                        {m.sentAt ? ` · ${formatTime(m.sentAt)}` : ""}
                      </span>
                      {m.lastError ? <p className="field-errors">Last error: {m.lastError}</p> : null}
                    </td>
                    <td data-label="Batch">
                      {m.batchKey ? (
                        <>
                          <Link to={`/admin/outbox?batch=${m.batchKey}`} title={m.batchKey}>
                            {shortBatch(m.batchKey)}
                          </Link>
                          <br />
                          <span className="muted">
                            {m.batchSize} {m.batchSize === 1 ? "email" : "emails"}
                            {m.batchedAt ? ` · ${formatTime(m.batchedAt)}` : ""}
                          </span>
                          <br />
                          <span className="muted">{batchResult(m)}</span>
                        </>
                      ) : (
                        <span className="muted">Not sent yet</span>
                      )}
                    </td>
                    <td>
                      {m.status === "failed" ? (
                        <Form method="post">
                          <input type="hidden" name="messageId" value={m.id} />
                          <SubmitButton
                            name="intent"
                            value="retry"
                            className="button button-small"
                            pendingText="Queuing…"
                          >
                            Retry
                          </SubmitButton>
                        </Form>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
      <Pagination page={filter.page} pages={pages} previous="← Newer" next="Older →" />
    </>
  );
}
