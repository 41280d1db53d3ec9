/**
 * Batched delivery (docs/decisions/020-batched-email.md). The worker hands over up to 100 due jobs
 * at once; their messages go out in one request to Resend's batch endpoint (or into the local
 * outbox, by the same path). pg-boss runs jobs at least once, so delivery is idempotent:
 *
 * - a batch's Idempotency-Key is derived from its message ids and attempts, and is stored on the
 *   messages (`batch_key`, `batch_open`) before the request leaves; until the provider's answer is
 *   recorded, those messages are only ever sent again as that same batch under that same key, so
 *   a batch retried after a crash, a timeout or a 500 is delivered once;
 * - a sent message is never sent again;
 * - a message the provider rejects on its own (permissive batch validation) fails alone, straight
 *   to the dead letter queue; the rest of its batch goes out;
 * - a 429 is a wait until the time the provider names (every instance holds off), not an attempt.
 */
import { sql } from "drizzle-orm";
import type { JobResult } from "pg-boss";
import { Resend } from "resend";
import { getDb } from "#db/client";
import { headerText } from "~/utils/email-layout.server";
import { env } from "~/utils/env.server";
import { NOTICE_KINDS, type NoticeKind } from "#db/schema/enums";
import { unsubscribeUrl } from "~/models/people/notice-preferences.server";
import { logger } from "~/utils/logger.server";
import { countEmails } from "~/utils/metrics.server";
import { emailJobSchema } from "./queues";
import { holdOffMail, takeMailSlot } from "./mail-rate";

/** Resend's batch endpoint takes at most 100 emails per request. */
export const MAX_BATCH = 100;

export type OutgoingEmail = {
  id: string;
  toEmail: string;
  subject: string;
  html: string;
  text: string;
  /**
   * The one-click unsubscribe address (RFC 8058) of a notice a person can turn off: its kind, for
   * its person (docs/decisions/029-oidc-and-notifications.md). Null for other mail.
   */
  unsubscribeUrl?: string | null;
};

/** The List-Unsubscribe headers of an email, when it has an unsubscribe address. */
export const unsubscribeHeaders = (email: OutgoingEmail): Record<string, string> | undefined =>
  email.unsubscribeUrl
    ? { "List-Unsubscribe": `<${email.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    : undefined;

/** The unsubscribe address of a stored message, from its person and kind. */
function withUnsubscribe<T extends OutgoingEmail & { userId: string | null; kind: string | null }>(row: T) {
  const { userId, kind, ...email } = row;
  const known = userId && kind && (NOTICE_KINDS as readonly string[]).includes(kind);
  return { ...email, unsubscribeUrl: known ? unsubscribeUrl(env().APP_URL, userId, kind as NoticeKind) : null };
}

/** The provider's answer to one batch request. */
export type BatchAnswer =
  /** One result per email, in the order sent: its provider id, or why the provider rejected it alone. */
  | { kind: "answered"; results: ({ ok: true; providerId: string | null } | { ok: false; error: string })[] }
  /** Too many requests: nothing was processed; send the same batch again after `retryAfterMs`. */
  | { kind: "rate-limited"; retryAfterMs: number }
  /** The whole batch was refused as invalid (strict validation): nothing was sent. */
  | { kind: "invalid"; error: string }
  /** Anything else (500, network, timeout): the outcome is unknown; retry the same batch later. */
  | { kind: "failed"; error: string };

export type Transport = {
  name: "resend" | "outbox";
  /** Whether requests count against the provider's rate. */
  limited: boolean;
  send(emails: OutgoingEmail[], idempotencyKey: string): Promise<BatchAnswer>;
};

const outboxTransport: Transport = {
  name: "outbox",
  limited: false,
  async send(emails) {
    // The local outbox is the message table itself: "sending" is recording the outcome.
    return { kind: "answered", results: emails.map(() => ({ ok: true, providerId: null })) };
  },
};

function resendClient(apiKey: string): Resend {
  const holder = globalThis as typeof globalThis & { __cmResend?: { key: string; client: Resend } };
  if (holder.__cmResend?.key !== apiKey) {
    holder.__cmResend = { key: apiKey, client: new Resend(apiKey, { baseUrl: env().RESEND_BASE_URL }) };
  }
  return holder.__cmResend.client;
}

/** `retry-after` is seconds (or an HTTP date); `ratelimit-reset` is seconds. At least 100 ms. */
export function retryAfterMs(headers: Record<string, string> | null): number {
  const retryAfter = headers?.["retry-after"];
  const reset = headers?.["ratelimit-reset"];
  let ms = 1000;
  if (retryAfter && /^\d+(\.\d+)?$/.test(retryAfter.trim())) ms = Number(retryAfter) * 1000;
  else if (retryAfter && !Number.isNaN(Date.parse(retryAfter))) ms = Date.parse(retryAfter) - Date.now();
  else if (reset && /^\d+(\.\d+)?$/.test(reset.trim())) ms = Number(reset) * 1000;
  return Math.max(100, Math.min(ms, 24 * 60 * 60 * 1000));
}

function resendTransport(apiKey: string, timeoutMs: number): Transport {
  return {
    name: "resend",
    limited: true,
    async send(emails, idempotencyKey) {
      const config = env();
      const { data, error, headers } = await resendClient(apiKey).batch.send(
        emails.map((email) => ({
          from: config.MAIL_FROM,
          to: [email.toEmail],
          subject: headerText(email.subject),
          html: email.html,
          text: email.text,
          tags: [{ name: "message_id", value: email.id }],
          headers: unsubscribeHeaders(email),
        })),
        { idempotencyKey, batchValidation: "permissive", signal: AbortSignal.timeout(timeoutMs) },
      );
      if (error || !data) {
        const reason = error ? `${error.name}: ${error.message}` : "no answer from the mail API";
        if (error?.statusCode === 429 && error.name === "rate_limit_exceeded") {
          return { kind: "rate-limited", retryAfterMs: retryAfterMs(headers) };
        }
        if (error?.statusCode === 422 && error.name === "validation_error") return { kind: "invalid", error: reason };
        return { kind: "failed", error: reason };
      }
      // Permissive validation: `data` holds the accepted emails in order, `errors` the rest by index.
      const rejected = new Map((data.errors ?? []).map((e) => [e.index, e.message]));
      const ids = data.data.map((d) => d.id);
      let next = 0;
      return {
        kind: "answered",
        results: emails.map((_, index) =>
          rejected.has(index)
            ? { ok: false as const, error: `rejected by the mail API: ${rejected.get(index)}` }
            : { ok: true as const, providerId: ids[next++] ?? null },
        ),
      };
    },
  };
}

export function currentTransport(): Transport {
  const config = env();
  if (!config.RESEND_API_KEY) return outboxTransport;
  // A request that never answers must not hold its jobs past their expiry.
  return resendTransport(config.RESEND_API_KEY, Math.max(1000, (config.EMAIL_JOB_TIMEOUT_SECONDS * 1000) / 2));
}

type Claimed = OutgoingEmail & {
  attempts: number;
  /** Its batch's key: the Idempotency-Key of the request that carries it. */
  batchKey: string;
  /** Whether that batch was opened by an earlier attempt (and never got its answer). */
  reopened: boolean;
};

type Outcome =
  | { status: "sent"; providerId: string | null }
  | { status: "rejected"; error: string }
  | { status: "retry"; error: string }
  | { status: "deferred"; until: Date };

export type BatchJob = { id: string; data: unknown; expireInSeconds?: number };

export type DeliveryHooks = {
  /** Queues the messages again, due at `startAfter` (a 429 longer than the jobs may wait). */
  requeue(messageIds: string[], startAfter: Date): Promise<void>;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers the messages of a batch of jobs and settles each job on its own: `completed` when its
 * message is sent (or was already, or is missing), `deadletter` when the provider rejected it,
 * `failed` (pg-boss retries it with backoff) when the provider's answer is unknown.
 */
export async function deliverBatch(
  jobs: BatchJob[],
  hooks: DeliveryHooks,
  transport: Transport = currentTransport(),
): Promise<JobResult[]> {
  const started = Date.now();
  const byJob = new Map<string, string | null>();
  for (const job of jobs) {
    const parsed = emailJobSchema.safeParse(job.data);
    if (!parsed.success) logger().error({ jobId: job.id }, "email job without a message id; dropped");
    byJob.set(job.id, parsed.success ? parsed.data.messageId : null);
  }
  const ids = [...new Set([...byJob.values()].filter((id): id is string => id !== null))];
  const claimed: Claimed[] = [];
  for (let i = 0; i < ids.length; i += MAX_BATCH)
    claimed.push(...(await claim(ids.slice(i, i + MAX_BATCH), transport)));
  const outcomes = new Map<string, Outcome>();

  // Messages whose batch never got its answer go out again as that batch, members and key
  // unchanged; the others go out as the batch their claim opened.
  const batches: { key: string; emails: OutgoingEmail[] }[] = [];
  for (const key of new Set(claimed.map((m) => m.batchKey))) {
    const members = claimed.filter((m) => m.batchKey === key);
    batches.push({ key, emails: members.some((m) => m.reopened) ? await batchMembers(key) : members });
  }

  // The jobs' expiry bounds how long this handler may wait out 429s before handing them back.
  const expireMs = Math.min(...jobs.map((j) => (j.expireInSeconds ?? 60) * 1000));
  const deadline = started + expireMs / 2;
  for (const batch of batches) {
    const answers = await sendBatch(transport, batch.key, batch.emails, deadline);
    await record(transport, batch.key, batch.emails, answers, hooks);
    for (const [id, outcome] of answers) outcomes.set(id, outcome);
  }

  return jobs.map((job) => {
    const messageId = byJob.get(job.id);
    const outcome = messageId ? outcomes.get(messageId) : undefined;
    if (!messageId) return { id: job.id, status: "completed", output: { result: "invalid" } };
    if (!outcome) return { id: job.id, status: "completed", output: { result: "already-sent-or-missing" } };
    switch (outcome.status) {
      case "sent":
        return { id: job.id, status: "completed", output: { result: "sent" } };
      case "deferred":
        return { id: job.id, status: "completed", output: { result: "deferred", until: outcome.until.toISOString() } };
      case "rejected":
        return { id: job.id, status: "deadletter", output: { error: outcome.error } };
      case "retry":
        return { id: job.id, status: "failed", output: { error: outcome.error } };
    }
  });
}

/**
 * Delivers one message by the same path, as a batch of one, outside any queue: "sent", "rejected"
 * (the provider refused it), "retry" (the answer is unknown) or "done" (already sent, or gone).
 */
export async function deliverEmail(messageId: string): Promise<"sent" | "rejected" | "retry" | "done"> {
  const [result] = await deliverBatch([{ id: messageId, data: { messageId } }], {
    async requeue() {
      throw new Error("deliverEmail: the mail API asked to wait longer than a direct delivery may");
    },
  });
  if (result?.status === "deadletter") return "rejected";
  if (result?.status === "failed") return "retry";
  return (result?.output as { result?: string } | undefined)?.result === "sent" ? "sent" : "done";
}

/**
 * Claims the messages for this attempt (at most MAX_BATCH), in one statement committed before
 * any request leaves: a sent one stays sent; one whose batch is still open keeps that batch; the
 * others open a batch together, whose key (the Idempotency-Key) hashes their ids and attempt
 * numbers. A claim racing another for the same message waits for it, then finds the batch it
 * opened: the message can only go out again under that batch's key.
 */
async function claim(ids: string[], transport: Transport): Promise<Claimed[]> {
  if (ids.length === 0) return [];
  const rows = await getDb().execute<Claimed & { userId: string | null; kind: string | null }>(sql`
    with target as (
      select id, attempts + 1 as attempt, batch_open and batch_key is not null as reopened
      from email_messages
      where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid) and status <> 'sent'
      for update
    ), fresh as (
      select 'batch-' || encode(sha256(convert_to(string_agg(id::text || '.' || attempt, ','
          order by (id::text || '.' || attempt) collate "C"), 'UTF8')), 'hex') as key, count(*)::int as size
      from target where not reopened
    )
    update email_messages m
    set status = 'sending', attempts = t.attempt, transport = ${transport.name}, updated_at = now(),
      batch_key = case when t.reopened then m.batch_key else f.key end,
      batch_size = case when t.reopened then m.batch_size else f.size end,
      batch_open = true,
      batched_at = case when t.reopened then m.batched_at else now() end
    from target t, fresh f
    where m.id = t.id
    returning m.id, m.to_email as "toEmail", m.subject, m.html, m.text, m.attempts, m.batch_key as "batchKey",
      t.reopened, m.to_user_id as "userId", m.kind`);
  return [...rows].map((row): Claimed => withUnsubscribe(row)).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Every message of a batch, in the order it was sent (ids ascending). */
async function batchMembers(key: string): Promise<OutgoingEmail[]> {
  const rows = await getDb().execute<OutgoingEmail & { userId: string | null; kind: string | null }>(sql`
    select id, to_email as "toEmail", subject, html, text, to_user_id as "userId", kind from email_messages
    where batch_key = ${key} order by id`);
  return [...rows].map(withUnsubscribe);
}

/**
 * Sends one batch within the rate, waiting out 429s until `deadline`; a batch refused whole as
 * invalid (strict validation) is split in halves, each under a key derived from the batch's, until
 * the bad message stands alone.
 */
async function sendBatch(
  transport: Transport,
  key: string,
  emails: OutgoingEmail[],
  deadline: number,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const config = env();
  for (;;) {
    if (transport.limited) await takeMailSlot(config.RESEND_MAX_REQUESTS_PER_SECOND);
    const answer = await transport.send(emails, key);
    if (answer.kind === "rate-limited") {
      await holdOffMail(answer.retryAfterMs);
      const until = Date.now() + answer.retryAfterMs;
      logger().info({ batch: key, retryAfterMs: answer.retryAfterMs }, "mail API rate limit; waiting");
      if (until < deadline) {
        await sleep(answer.retryAfterMs);
        continue;
      }
      for (const email of emails) outcomes.set(email.id, { status: "deferred", until: new Date(until) });
      return outcomes;
    }
    if (answer.kind === "invalid") {
      if (emails.length === 1) {
        outcomes.set(emails[0]!.id, { status: "rejected", error: answer.error });
        return outcomes;
      }
      const half = Math.ceil(emails.length / 2);
      for (const [part, suffix] of [
        [emails.slice(0, half), "a"],
        [emails.slice(half), "b"],
      ] as const) {
        for (const [id, outcome] of await sendBatch(transport, `${key}.${suffix}`, part, deadline)) {
          outcomes.set(id, outcome);
        }
      }
      return outcomes;
    }
    if (answer.kind === "failed") {
      for (const email of emails) outcomes.set(email.id, { status: "retry", error: answer.error });
      return outcomes;
    }
    emails.forEach((email, index) => {
      const result = answer.results[index];
      outcomes.set(
        email.id,
        !result
          ? { status: "retry", error: "the mail API's answer left this message out" }
          : result.ok
            ? { status: "sent", providerId: result.providerId }
            : { status: "rejected", error: result.error },
      );
    });
    return outcomes;
  }
}

/**
 * Records a batch's outcome on its messages in one statement. Only rows still in that batch are
 * touched (a message an admin queued again has moved on to a batch of its own).
 */
async function record(
  transport: Transport,
  key: string,
  emails: OutgoingEmail[],
  outcomes: Map<string, Outcome>,
  hooks: DeliveryHooks,
): Promise<void> {
  const rows = emails.map((email) => {
    const outcome = outcomes.get(email.id)!;
    return {
      id: email.id,
      status: outcome.status === "sent" ? "sent" : outcome.status === "rejected" ? "failed" : "queued",
      provider_id: outcome.status === "sent" ? outcome.providerId : null,
      last_error: outcome.status === "rejected" || outcome.status === "retry" ? outcome.error : null,
      // Settled: the provider answered for this message. Open: it must go out again in this batch.
      settled: outcome.status === "sent" || outcome.status === "rejected",
    };
  });
  await getDb().execute(sql`
    update email_messages m set
      status = r.status,
      provider_id = coalesce(r.provider_id, m.provider_id),
      last_error = case when r.status = 'sent' then null else coalesce(r.last_error, m.last_error) end,
      batch_open = not r.settled,
      transport = ${transport.name},
      sent_at = case when r.status = 'sent' then coalesce(m.sent_at, now()) else m.sent_at end,
      updated_at = now()
    from json_to_recordset(${JSON.stringify(rows)}::json)
      as r(id uuid, status text, provider_id text, last_error text, settled boolean)
    where m.id = r.id and m.batch_key = ${key} and m.status <> 'sent'`);
  const sent = rows.filter((r) => r.status === "sent").length;
  const rejected = rows.filter((r) => r.status === "failed").length;
  const deferred = [...outcomes.entries()].filter(([, o]) => o.status === "deferred");
  if (deferred.length) {
    const until = (deferred[0]![1] as { until: Date }).until;
    await hooks.requeue(
      deferred.map(([id]) => id),
      until,
    );
  }
  countEmails("sent", sent);
  countEmails("deferred", deferred.length);
  countEmails("retry", rows.length - sent - rejected - deferred.length);
  const level = rejected || rows.length - sent - deferred.length ? "warn" : "info";
  logger()[level](
    {
      batch: key,
      transport: transport.name,
      size: rows.length,
      sent,
      rejected,
      deferred: deferred.length,
      retry: rows.length - sent - rejected - deferred.length,
    },
    "email batch delivered",
  );
}

/** Retries are exhausted: the message stays visible to admins as failed, with its last error. */
export async function markEmailFailed(messageId: string): Promise<void> {
  const changed = await getDb().execute(sql`
    update email_messages set status = 'failed', updated_at = now() where id = ${messageId} and status <> 'sent'
    returning id`);
  countEmails("failed", changed.length);
  logger().error({ messageId }, "email delivery failed for good; an admin can retry it from /admin/outbox");
}
