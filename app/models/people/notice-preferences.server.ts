/**
 * Which notices a person gets, and how (docs/decisions/029-oidc-and-notifications.md): per kind,
 * email and in-app, in-app only, or off. A step waiting on the person is never below in-app: it
 * is their work. No row means the kind's default; the defaults keep every email of docs/api-contract.md's "Emails"
 * table lists. An email's unsubscribe link carries a signed token naming one person and one kind,
 * so it works without signing in and changes only that kind (to in-app only).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import {
  NOTICE_CHANNELS,
  NOTICE_KINDS,
  notificationPreferences,
  users,
  type NoticeChannel,
  type NoticeKind,
} from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Invalid, NotFound } from "~/utils/errors";
import { sessionSecrets } from "~/utils/token.server";
import type { Actor } from "../authz/authz.server";

export type { NoticeChannel, NoticeKind };

export const NOTICE_KIND_INFO: Record<
  NoticeKind,
  { label: string; description: string; default: NoticeChannel; floor: NoticeChannel | null }
> = {
  step_waiting: {
    label: "Steps waiting on me",
    description:
      "A MOC step, PCR signature or affected-party signature that only you can do now, or a finished change circulated for you to read and acknowledge.",
    default: "email",
    floor: "in_app",
  },
  moc_decision: {
    label: "Decisions on my MOCs",
    description: "Approvals, declines, returns and assignments on MOCs you are part of.",
    default: "email",
    floor: null,
  },
  reminder: {
    label: "Reminders",
    description: "Target dates coming up or passed, and temporary changes about to expire.",
    default: "email",
    floor: null,
  },
  action: {
    label: "Actions",
    description: "Action-plan and manuals-plan items given to you on a MOC, or cancelled.",
    default: "email",
    floor: null,
  },
  chat_mention: {
    label: "Chat mentions",
    description: "Someone wrote @your name in a record's chat.",
    default: "email",
    floor: null,
  },
  pcr_signature: {
    label: "PCR signatures",
    description: "PCRs raised, signed and finished that involve you.",
    default: "email",
    floor: null,
  },
};

export const CHANNEL_LABEL: Record<NoticeChannel, string> = {
  email: "Email and in-app",
  digest: "In-app, and one email a day listing them",
  in_app: "In-app only",
  off: "Off",
};

/**
 * The channels a person may choose for a kind (its floor and above): a kind that is their work
 * (a step waiting on them) is emailed at once or shown in the app, never kept for the digest.
 */
export const channelsAllowed = (kind: NoticeKind): NoticeChannel[] =>
  NOTICE_KIND_INFO[kind].floor === "in_app" ? ["email", "in_app"] : [...NOTICE_CHANNELS];

/** A channel never below the kind's floor. */
const atLeastFloor = (kind: NoticeKind, channel: NoticeChannel): NoticeChannel =>
  channel === "off" && NOTICE_KIND_INFO[kind].floor ? NOTICE_KIND_INFO[kind].floor! : channel;

export type Preferences = Record<NoticeKind, NoticeChannel>;

/** Every kind's channel for the person (defaults filled in). */
export async function preferencesOf(userId: string, db: Executor = getDb()): Promise<Preferences> {
  const rows = await db
    .select({ kind: notificationPreferences.kind, channel: notificationPreferences.channel })
    .from(notificationPreferences)
    .where(eq(notificationPreferences.userId, userId));
  const chosen = new Map(rows.map((r) => [r.kind, r.channel]));
  return Object.fromEntries(
    NOTICE_KINDS.map((kind) => [kind, atLeastFloor(kind, chosen.get(kind) ?? NOTICE_KIND_INFO[kind].default)]),
  ) as Preferences;
}

/**
 * The channel of each (person, kind) a fan-out is about to write, in one query: the key is
 * `${userId}:${kind}`. Kinds nobody chose keep their default.
 */
export async function channelsFor(
  db: Executor,
  wanted: { userId: string; kind: NoticeKind }[],
): Promise<(userId: string, kind: NoticeKind) => NoticeChannel> {
  const ids = [...new Set(wanted.map((w) => w.userId))];
  const rows = ids.length
    ? await db
        .select({
          userId: notificationPreferences.userId,
          kind: notificationPreferences.kind,
          channel: notificationPreferences.channel,
        })
        .from(notificationPreferences)
        .where(inArray(notificationPreferences.userId, ids))
    : [];
  const chosen = new Map(rows.map((r) => [`${r.userId}:${r.kind}`, r.channel]));
  return (userId, kind) => atLeastFloor(kind, chosen.get(`${userId}:${kind}`) ?? NOTICE_KIND_INFO[kind].default);
}

/**
 * Sets some of the actor's own kinds (a partial update changes only the kinds named). A channel
 * below a kind's floor, or an unknown kind or channel, is a 400 and changes nothing.
 */
export async function setPreferences(actor: Actor, changes: Record<string, unknown>): Promise<Preferences> {
  const issues: { path: string; message: string }[] = [];
  const valid: { kind: NoticeKind; channel: NoticeChannel }[] = [];
  for (const [kind, channel] of Object.entries(changes)) {
    if (!(NOTICE_KINDS as readonly string[]).includes(kind)) {
      issues.push({ path: kind, message: "Unknown kind of notice" });
    } else if (typeof channel !== "string" || !(NOTICE_CHANNELS as readonly string[]).includes(channel)) {
      issues.push({ path: kind, message: "Choose email, digest, in_app or off" });
    } else if (!channelsAllowed(kind as NoticeKind).includes(channel as NoticeChannel)) {
      issues.push({
        path: kind,
        message: "A step waiting on you is told at once: choose email or in-app",
      });
    } else {
      valid.push({ kind: kind as NoticeKind, channel: channel as NoticeChannel });
    }
  }
  if (issues.length) throw new Invalid("Some notification choices are not valid", issues);
  return getDb().transaction(async (tx) => {
    if (valid.length) await upsert(tx, actor._id, valid);
    return preferencesOf(actor._id, tx);
  });
}

async function upsert(db: Executor, userId: string, rows: { kind: NoticeKind; channel: NoticeChannel }[]) {
  await db
    .insert(notificationPreferences)
    .values(rows.map((r) => ({ userId, kind: r.kind, channel: r.channel })))
    .onConflictDoUpdate({
      target: [notificationPreferences.userId, notificationPreferences.kind],
      set: { channel: sql`excluded.channel`, updatedAt: sql`now()` },
    });
}

// ---------------------------------------------------------------------------------------------
// Unsubscribe links

const mac = (key: string, data: string) => createHmac("sha256", key).update(`unsubscribe:${data}`).digest();

/** A token naming one person and one kind of notice, signed with the first SESSION_SECRET key. */
export function unsubscribeToken(userId: string, kind: NoticeKind): string {
  const data = `${userId}.${kind}`;
  return `${Buffer.from(data).toString("base64url")}.${mac(sessionSecrets()[0]!, data).toString("base64url")}`;
}

/** The person and kind a token names, or null when it is not one of ours (any key verifies). */
export function readUnsubscribeToken(token: string): { userId: string; kind: NoticeKind } | null {
  const [body, signature] = token.split(".");
  if (!body || !signature || !/^[\w-]+$/.test(body) || !/^[\w-]+$/.test(signature)) return null;
  const data = Buffer.from(body, "base64url").toString("utf8");
  const given = Buffer.from(signature, "base64url");
  const signed = sessionSecrets().some((key) => {
    const expected = mac(key, data);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signed) return null;
  const [userId, kind] = data.split(".");
  if (!userId || !kind || !(NOTICE_KINDS as readonly string[]).includes(kind)) return null;
  return { userId, kind: kind as NoticeKind };
}

/** The page where a person chooses their notices. */
export const PREFERENCES_PATH = "/notifications/preferences";

/** The one-click unsubscribe address of one kind of notice for one person (no sign-in needed). */
export const unsubscribeUrl = (appUrl: string, userId: string, kind: NoticeKind) =>
  `${appUrl}/unsubscribe/${unsubscribeToken(userId, kind)}`;

/** Who a token names and what it would change (the confirmation page), or 404 for a bad token. */
export async function unsubscribeTarget(token: string): Promise<{ name: string; kind: NoticeKind }> {
  const named = readUnsubscribeToken(token);
  if (!named) throw new NotFound("This unsubscribe link is not valid");
  const [user] = await getDb().select({ name: users.name }).from(users).where(eq(users.id, named.userId));
  if (!user) throw new NotFound("This unsubscribe link is not valid");
  return { name: user.name, kind: named.kind };
}

/** Stops the emails of the token's kind for its person (in-app only); nothing else changes. */
export async function unsubscribe(token: string): Promise<{ kind: NoticeKind }> {
  const target = await unsubscribeTarget(token);
  const { userId } = readUnsubscribeToken(token)!;
  await getDb().transaction(async (tx) => {
    const [current] = await tx
      .select({ channel: notificationPreferences.channel })
      .from(notificationPreferences)
      .where(and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.kind, target.kind)));
    // Already off stays off: unsubscribing never turns notices back on.
    if (current?.channel !== "off") await upsert(tx, userId, [{ kind: target.kind, channel: "in_app" }]);
  });
  return { kind: target.kind };
}
