/**
 * The outbox pattern: model functions call `notify` inside their own transaction. It writes one
 * message row per recipient and one pg-boss job per message in that same transaction (one
 * multi-row insert each), so a rolled-back change sends nothing and a committed change always
 * sends. The workers deliver them in batches (jobs/email.ts, docs/decisions/020-batched-email.md).
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { EMAIL_STATUSES, emailMessages, users, type Department, type EmailStatus } from "#db/schema";
import { getDb, statementOnce, type Executor } from "~/utils/db.server";
import { EMAIL_QUEUE, sendInTransaction, sendManyInTransaction } from "~/utils/jobs.server";
import { renderEmail, type EmailContent } from "~/utils/email-layout.server";
import { env } from "~/utils/env.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import { canSeeOutbox, type Actor } from "../authz/authz.server";
import { delegatesOfSql } from "../people/delegation.server";
import {
  channelsFor,
  NOTICE_KIND_INFO,
  PREFERENCES_PATH,
  unsubscribeUrl,
  type NoticeKind,
} from "../people/notice-preferences.server";
import { PUBLIC_USER_COLUMNS, toPublicUser, type PublicUser } from "../people/user.server";

export type Recipients = {
  userIds?: (string | null | undefined)[];
  /** Every active user of these departments ("HSEQ department" in docs/api-contract.md, "Emails"). */
  departments?: Department[];
  /** Every active holder of these PCR positions. */
  positions?: string[];
  /** Every active admin. */
  admins?: boolean;
  /** The person whose action this notice is about: never told of it (docs/decisions/029-oidc-and-notifications.md). */
  except?: string | null;
};

export type NotifyInput = {
  to: Recipients;
  content: EmailContent;
  record?: { type: "moc" | "pcr"; id: string };
  /**
   * Where each recipient acts, when it differs from the record's page (the step form waiting on
   * them): the email's link and the in-app notification's. Null keeps the record's link.
   */
  linkFor?: (recipient: Actor) => string | null;
  /**
   * The kind of notice (whose preference decides its channel). Left out, a recipient who may act
   * now (linkFor gives a link) gets a `step_waiting`, anyone else the record's kind. `account`:
   * always emailed (see QueuedEmail).
   */
  kind?: NoticeKind | "account";
};

/**
 * Queues one email per distinct active recipient, in the caller's transaction. Inactive users
 * and duplicates are skipped. Returns the addresses written to, in a stable order. `found` is
 * `findRecipients(tx, input.to)` when the caller looked them up already (in a flight of its own).
 */
export async function notify(tx: Executor, input: NotifyInput & { found?: Recipient[] }): Promise<string[]> {
  const recipients = input.found ?? (await findRecipients(tx, input.to));
  if (recipients.length === 0) return [];

  // All message rows in one statement and all jobs in one more, however many recipients.
  const queued = await queueEmails(
    tx,
    recipients.map(({ _id: id, name, email, ...person }) => {
      const link = input.linkFor?.({ _id: id, ...person });
      const content =
        link && input.content.record
          ? { ...input.content, record: { ...input.content.record, url: link } }
          : input.content;
      const kind =
        input.kind ?? (link ? "step_waiting" : input.record?.type === "pcr" ? "pcr_signature" : "moc_decision");
      return { to: { id, name, email }, content, record: input.record, kind };
    }),
  );
  return queued.map((q) => q.toEmail);
}

/** A person a notice reaches. */
export type Recipient = PublicUser;

/** The active people `to` names (see recipientsStatement), in email order, one per address. */
export async function findRecipients(tx: Executor, to: Recipients): Promise<Recipient[]> {
  const ids = [...new Set((to.userIds ?? []).filter((id): id is string => Boolean(id)))];
  const departments = to.departments ?? [];
  const positions = to.positions ?? [];
  if (!ids.length && !departments.length && !positions.length && !to.admins) return [];
  const people = await recipientsStatement(tx).execute({
    ids: JSON.stringify(ids),
    day: new Date().toISOString().slice(0, 10),
    departments: JSON.stringify(departments),
    positions: JSON.stringify(positions),
    admins: Boolean(to.admins),
  });
  const seen = new Set<string>();
  return people.filter((p) => p.id !== to.except && !seen.has(p.email) && seen.add(p.email)).map(toPublicUser);
}

/**
 * The active people a notice reaches, by email: those named, whoever stands in today for someone
 * named (docs/decisions/023-temporary-changes-and-delegation.md), everyone of the departments and
 * positions listed, and every admin when asked. One statement, built once; lists as JSON arrays.
 */
const recipientsStatement = statementOnce((db) => {
  const listed = (name: string) => sql`(select jsonb_array_elements_text(${sql.placeholder(name)}::jsonb))`;
  return db
    .select(PUBLIC_USER_COLUMNS)
    .from(users)
    .where(
      and(
        eq(users.active, true),
        or(
          sql`${users.id} in (select jsonb_array_elements_text(${sql.placeholder("ids")}::jsonb)::uuid)`,
          sql`${users.id} in ${delegatesOfSql(sql.placeholder("ids"), sql.placeholder("day"))}`,
          sql`${users.department}::text in ${listed("departments")}`,
          sql`${users.position}::text in ${listed("positions")}`,
          sql`(${sql.placeholder("admins")}::boolean and ${users.role} = 'admin')`,
        ),
      ),
    )
    .orderBy(users.email)
    .prepare("notify_recipients");
});

export type QueuedEmail = {
  to: { id: string; name: string; email: string };
  content: EmailContent;
  record?: { type: "moc" | "pcr"; id: string };
  /**
   * Which of the recipient's preferences decides: email and in-app, in-app only, or nothing.
   * `account`: a message about the account itself (a sign-in link) or one an admin must keep (the
   * audit trail's daily seal), always emailed, never unsubscribed. `digest`: the daily digest
   * itself (notice-digest.server.ts), emailed because its reader chose it.
   */
  kind: NoticeKind | "account" | "digest";
};

/**
 * `notify` for a fan-out whose recipients the caller already resolved (active users only): every
 * message row in one statement and every job in one more, however many there are. Returns the
 * queued messages' ids and records, in input order.
 */
export async function queueEmails(
  tx: Executor,
  emails: QueuedEmail[],
): Promise<{ id: string; recordId: string | null; toEmail: string }[]> {
  if (emails.length === 0) return [];
  const appUrl = env().APP_URL;
  // Each recipient's choice for the kind (one query): off writes nothing, in-app only writes the
  // notification without an email (docs/decisions/029-oidc-and-notifications.md).
  const channel = await channelsFor(
    tx,
    emails.flatMap((e) => (e.kind === "account" || e.kind === "digest" ? [] : [{ userId: e.to.id, kind: e.kind }])),
  );
  const rows = emails.flatMap(({ to, content, record, kind }) => {
    const chosen = kind === "account" || kind === "digest" ? "email" : channel(to.id, kind);
    if (chosen === "off") return [];
    const preferencesUrl = `${appUrl}${PREFERENCES_PATH}`;
    return [
      {
        id: randomUUID(),
        to_email: to.email,
        to_user_id: to.id,
        ...renderEmail(
          content,
          to.name,
          appUrl,
          kind === "account"
            ? undefined
            : kind === "digest"
              ? { kind: "daily digest", preferencesUrl, unsubscribeUrl: preferencesUrl }
              : {
                  kind: NOTICE_KIND_INFO[kind].label,
                  preferencesUrl,
                  unsubscribeUrl: unsubscribeUrl(appUrl, to.id, kind),
                },
        ),
        record_type: record?.type ?? null,
        record_id: record?.id ?? null,
        link: content.record?.url ?? null,
        kind,
        emailed: chosen === "email",
        // In the app now; listed in the reader's next daily digest.
        digest_pending: chosen === "digest",
      },
    ];
  });
  if (rows.length === 0) return [];
  const mailed = rows.filter((row) => row.emailed);
  // One JSON parameter rather than 8 per row: no bind-parameter limit, one statement. The jobs
  // name their messages by the ids made here, so both statements go in one flight (pipelined on
  // the transaction's connection: one round trip).
  await Promise.all([
    tx.execute(sql`
      insert into email_messages (id, to_email, to_user_id, subject, html, text, record_type, record_id, link, kind,
        emailed, digest_pending, status)
      select id, to_email, to_user_id, subject, html, text, record_type, record_id, link, kind, emailed, digest_pending,
        case when emailed then 'queued' else 'sent' end
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(
        id uuid, to_email text, to_user_id uuid, subject text, html text, text text, record_type text, record_id uuid,
        link text, kind text, emailed boolean, digest_pending boolean)`),
    sendManyInTransaction(
      tx,
      EMAIL_QUEUE,
      mailed.map((row) => ({ messageId: row.id })),
    ),
  ]);
  return rows.map((row) => ({ id: row.id, recordId: row.record_id, toEmail: row.to_email }));
}

// ---------------------------------------------------------------------------------------------
// The admin outbox

export type OutboxFilter = {
  status?: EmailStatus;
  recipient?: string;
  /** One batch's messages (its Idempotency-Key). */
  batch?: string;
  limit?: number;
  offset?: number;
};

export async function listOutbox(actor: Actor, filter: OutboxFilter = {}) {
  if (!canSeeOutbox(actor)) throw new Forbidden("Only administrators can see the outbox");
  const conditions: SQL[] = [];
  if (filter.status && (EMAIL_STATUSES as readonly string[]).includes(filter.status)) {
    conditions.push(eq(emailMessages.status, filter.status));
  }
  const recipient = filter.recipient?.trim();
  if (recipient) conditions.push(ilike(emailMessages.toEmail, `%${recipient.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  if (filter.batch) conditions.push(eq(emailMessages.batchKey, filter.batch));
  const where = conditions.length ? and(...conditions) : undefined;
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const [messages, [total]] = await Promise.all([
    getDb()
      .select()
      .from(emailMessages)
      .where(where)
      .orderBy(desc(emailMessages.createdAt), desc(emailMessages.id))
      .limit(limit)
      .offset(Math.max(filter.offset ?? 0, 0)),
    getDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(emailMessages)
      .where(where),
  ]);
  return {
    messages: messages.map((m) => ({
      ...m,
      text: hideSignInTokens(m.text),
      html: hideSignInTokens(m.html),
      link: m.link && hideSignInTokens(m.link),
    })),
    total: total?.n ?? 0,
    limit,
  };
}

/**
 * A one-time sign-in link (app/models/sign-in/sign-in-link.server.ts) is its recipient's alone: the
 * outbox shows it without its token, so an admin reading the outbox cannot sign in as someone.
 */
export const hideSignInTokens = (text: string) =>
  text.replace(/(\/login\/link\?token=)[A-Za-z0-9_-]+/g, "$1(hidden-in-the-outbox)");

/** Sends a failed message again (a new job; the idempotency key stays the message id). */
export async function retryMessage(actor: Actor, id: string): Promise<void> {
  if (!canSeeOutbox(actor)) throw new Forbidden("Only administrators can retry email");
  await getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(emailMessages)
      .set({ status: "queued", updatedAt: new Date() })
      .where(and(eq(emailMessages.id, id), eq(emailMessages.status, "failed")))
      .returning({ id: emailMessages.id });
    if (!row) {
      const [exists] = await tx.select({ id: emailMessages.id }).from(emailMessages).where(eq(emailMessages.id, id));
      if (!exists) throw new NotFound("No such message");
      throw new Conflict("Only a failed message can be retried");
    }
    await sendInTransaction(tx, EMAIL_QUEUE, { messageId: id });
  });
}
