/**
 * One-time sign-in links by email (docs/decisions/028-untrusted-text-and-sign-in-links.md): the
 * owner's way in that asks no password, so nobody who can spend an account's failure budget
 * from outside (app/models/people/password-attempts.server.ts) can lock its owner out.
 *
 * - Anyone may ask for a link for an email; the answer is the same whether an account has it or
 *   not. Only an active account's mailbox receives one, through the email outbox.
 * - The token is 32 random bytes; the database keeps its SHA-256 only. A link lasts 15 minutes,
 *   works once, and using one voids the account's other unused links.
 * - Asking is limited per account (3 emails per 15 minutes, silently: a link already sent still
 *   works) and per client network (20 asks per 15 minutes, 429), so nobody can flood a mailbox.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { signInLinks, users } from "#db/schema";
import { addressGroup, UNKNOWN_CLIENT } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { Invalid } from "~/utils/errors";
import { queueEmails } from "../messages/email.server";
import { spendPoint, takePoint, type Budget } from "../shared/rate-limit.server";
import { PUBLIC_USER_COLUMNS, toPublicUser, type PublicUser } from "../people/user.server";

export const SIGN_IN_LINK_MINUTES = 15;
export const SIGN_IN_LINK_PATH = "/login/link";
const PER_ACCOUNT: Budget = { limit: 3, windowSeconds: 15 * 60 };
const PER_NETWORK: Budget = { limit: 20, windowSeconds: 15 * 60 };

export const LINK_NOT_VALID =
  "This sign-in link cannot be used: it was used already, it expired, or it was not copied whole. Ask for a new one below.";

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/**
 * Emails a one-time sign-in link to the active account with this email, if there is one. Answers
 * nothing either way (the caller shows one message for both); 429 only past the network's budget.
 */
export async function requestSignInLink(email: string, address: string): Promise<void> {
  if (address !== UNKNOWN_CLIENT) {
    await takePoint(
      `sign-in-link-address:${addressGroup(address)}`,
      PER_NETWORK,
      "Too many sign-in links were asked for from your network; try again later",
    );
  }
  const [user] = await getDb()
    .select({ id: users.id, name: users.name, email: users.email, active: users.active })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (!user || !user.active) return;
  if (!(await spendPoint(`sign-in-link-account:${user.id}`, PER_ACCOUNT)).allowed) return;
  const token = randomBytes(32).toString("base64url");
  await getDb().transaction(async (tx) => {
    await tx.insert(signInLinks).values({
      userId: user.id,
      tokenHash: hashOf(token),
      expiresAt: sql`now() + make_interval(mins => ${SIGN_IN_LINK_MINUTES})`,
    });
    await queueEmails(tx, [
      {
        to: { id: user.id, name: user.name, email: user.email },
        kind: "account",
        content: {
          record: { label: "Sign-in link", url: `${SIGN_IN_LINK_PATH}?token=${token}` },
          subject: "Your one-time sign-in link",
          event: "Here is the one-time sign-in link you asked for on the sign-in page.",
          expectation: `Open the link within ${SIGN_IN_LINK_MINUTES} minutes and press "Sign in". It works once. If you did not ask for it, ignore this email: the link is of use only to whoever reads this mailbox.`,
        },
      },
    ]);
  });
}

/**
 * Uses a sign-in link: the active account it was sent to, or 400 LINK_NOT_VALID (unknown, used,
 * expired, or its account deactivated). One statement marks this link and every other unused link
 * of the account used, so a link works once even when two requests race.
 */
export async function redeemSignInLink(token: string): Promise<PublicUser> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new Invalid(LINK_NOT_VALID);
  return getDb().transaction(async (tx) => {
    const [link] = await tx
      .update(signInLinks)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(signInLinks.tokenHash, hashOf(token)),
          isNull(signInLinks.usedAt),
          gt(signInLinks.expiresAt, sql`now()`),
        ),
      )
      .returning({ userId: signInLinks.userId });
    if (!link) throw new Invalid(LINK_NOT_VALID);
    await tx
      .update(signInLinks)
      .set({ usedAt: sql`now()` })
      .where(and(eq(signInLinks.userId, link.userId), isNull(signInLinks.usedAt)));
    const [row] = await tx.select(PUBLIC_USER_COLUMNS).from(users).where(eq(users.id, link.userId));
    if (!row || !row.active) throw new Invalid(LINK_NOT_VALID);
    return toPublicUser(row);
  });
}
