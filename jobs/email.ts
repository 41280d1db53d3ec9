/**
 * Delivers one queued message. pg-boss runs jobs at least once (a retry, a crashed worker's
 * expired job), so delivery is idempotent: a sent message is never sent again, and Resend gets
 * the message id as its idempotency key, so a repeat of a request it already accepted is a no-op.
 */
import { and, eq, ne, sql } from "drizzle-orm";
import { Resend } from "resend";
import { getDb } from "#db/client";
import { emailMessages } from "#db/schema";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";

export class DeliveryError extends Error {}

function resendClient(apiKey: string): Resend {
  const holder = globalThis as typeof globalThis & { __cmResend?: { key: string; client: Resend } };
  if (holder.__cmResend?.key !== apiKey) {
    holder.__cmResend = { key: apiKey, client: new Resend(apiKey, { baseUrl: env().RESEND_BASE_URL }) };
  }
  return holder.__cmResend.client;
}

export async function deliverEmail(messageId: string): Promise<"sent" | "already-sent" | "missing"> {
  const db = getDb();
  // Claim the message for this attempt; a sent one stays sent.
  const [message] = await db
    .update(emailMessages)
    .set({ status: "sending", attempts: sql`${emailMessages.attempts} + 1`, updatedAt: new Date() })
    .where(and(eq(emailMessages.id, messageId), ne(emailMessages.status, "sent")))
    .returning();
  if (!message) {
    const [exists] = await db
      .select({ id: emailMessages.id })
      .from(emailMessages)
      .where(eq(emailMessages.id, messageId));
    return exists ? "already-sent" : "missing";
  }

  const config = env();
  let transport: "resend" | "outbox" = "outbox";
  let providerId: string | null = null;
  if (config.RESEND_API_KEY) {
    transport = "resend";
    const { data, error } = await resendClient(config.RESEND_API_KEY).emails.send(
      {
        from: config.MAIL_FROM,
        to: [message.toEmail],
        subject: message.subject,
        html: message.html,
        text: message.text,
      },
      { idempotencyKey: `email-${message.id}` },
    );
    if (error || !data) {
      const reason = error ? `${error.name}: ${error.message}` : "no answer from the mail API";
      await db
        .update(emailMessages)
        .set({ status: "queued", lastError: reason, updatedAt: new Date() })
        .where(eq(emailMessages.id, message.id));
      logger().warn({ messageId, attempt: message.attempts, reason }, "email delivery failed; will retry");
      throw new DeliveryError(reason);
    }
    providerId = data.id;
  }
  await db
    .update(emailMessages)
    .set({ status: "sent", transport, providerId, lastError: null, sentAt: new Date(), updatedAt: new Date() })
    .where(eq(emailMessages.id, message.id));
  logger().info({ messageId, transport, attempt: message.attempts }, "email delivered");
  return "sent";
}

/** Retries are exhausted: the message stays visible to admins as failed, with its last error. */
export async function markEmailFailed(messageId: string): Promise<void> {
  await getDb()
    .update(emailMessages)
    .set({ status: "failed", updatedAt: new Date() })
    .where(and(eq(emailMessages.id, messageId), ne(emailMessages.status, "sent")));
  logger().error({ messageId }, "email delivery failed for good; an admin can retry it from /admin/outbox");
}
