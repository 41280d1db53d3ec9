import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

import type { Access, Department, NoticeChannel, NoticeKind, Position, ReminderPreference, Role } from "./enums";
import { ranks } from "./ranks";

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    /** Stored trimmed and lower-cased; unique. */
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role").$type<Role>().notNull().default("user"),
    department: text("department").$type<Department>().notNull(),
    access: text("access").$type<Access>().notNull().default("standard"),
    position: text("position").$type<Position | null>(),
    /** Rank on board (issue 41): one of `ranks`, a rename following it; null for none (office staff). */
    rank: text("rank").references(() => ranks.name, { onUpdate: "cascade" }),
    active: boolean("active").notNull().default(true),
    /** False until a user whose password was set by an admin has chosen their own. */
    onboarded: boolean("onboarded").notNull().default(false),
    /** Target-date reminders: one email per MOC (the default) or one daily digest. */
    reminderPreference: text("reminder_preference").$type<ReminderPreference>().notNull().default("per_moc"),
    /**
     * The account at the identity provider this person is linked to (the ID token's `iss` and
     * `sub`), set at their first sign-in through it; a sign-in is matched by the pair first
     * (docs/decisions/052-oidc-subject-link.md). All three null: not linked yet.
     */
    oidcIssuer: text("oidc_issuer"),
    oidcSubject: text("oidc_subject"),
    oidcLinkedAt: timestamp("oidc_linked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    uniqueIndex("users_oidc_subject_key").on(t.oidcIssuer, t.oidcSubject),
    index("users_department_idx")
      .on(t.department)
      .where(sql`${t.active}`),
    index("users_rank_idx")
      .on(t.rank)
      .where(sql`${t.rank} is not null`),
    check("users_role_check", sql`${t.role} in ('admin', 'user')`),
    check("users_department_check", sql`${t.department} in ('engineering', 'operations', 'fleet', 'hseq')`),
    check("users_reminder_preference_check", sql`${t.reminderPreference} in ('per_moc', 'digest')`),
    check("users_access_check", sql`${t.access} in ('full', 'standard')`),
    check(
      "users_oidc_link_check",
      sql`(${t.oidcIssuer} is null) = (${t.oidcSubject} is null) and (${t.oidcSubject} is null) = (${t.oidcLinkedAt} is null)`,
    ),
    check(
      "users_position_check",
      sql`${t.position} is null or ${t.position} in ('VP Fleet Management', 'HSEQ Coordinator', 'Group HSEQ Manager', 'Director HSEQ', 'President')`,
    ),
  ],
);

/** Server-side half of a session: the signed token names a row here (`sid`) so it can be revoked. */
export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** How the session was opened: `password` or `oidc` (sign-out ends the provider's too). */
    method: text("method").notNull().default("password"),
    /**
     * When the person last proved it was them to the identity provider again (prompt=login) in
     * this session; a signature spends it (app/web/reauth.server.ts).
     */
    reauthenticatedAt: timestamp("reauthenticated_at", { withTimezone: true }),
  },
  (t) => [
    index("sessions_user_idx").on(t.userId),
    check("sessions_method_check", sql`${t.method} in ('password', 'oidc')`),
  ],
);

/**
 * A sign-in through the identity provider refused because the email named a person linked to
 * another account there (docs/decisions/052-oidc-subject-link.md): what was attempted, for the
 * admins to re-link or dismiss. One open row per person and attempted account; repeats count.
 */
export const oidcConflicts = pgTable(
  "oidc_conflicts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    /** The email and name the provider gave with the attempt. */
    email: text("email").notNull(),
    name: text("name"),
    attempts: integer("attempts").notNull().default(1),
    firstAt: timestamp("first_at", { withTimezone: true }).notNull().defaultNow(),
    lastAt: timestamp("last_at", { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    resolvedBy: uuid("resolved_by").references(() => users.id, { onDelete: "set null" }),
    resolution: text("resolution").$type<"relinked" | "dismissed">(),
  },
  (t) => [
    uniqueIndex("oidc_conflicts_open_key")
      .on(t.userId, t.issuer, t.subject)
      .where(sql`${t.resolvedAt} is null`),
    check(
      "oidc_conflicts_resolution_check",
      sql`${t.resolution} is null or ${t.resolution} in ('relinked', 'dismissed')`,
    ),
    check("oidc_conflicts_resolved_check", sql`(${t.resolvedAt} is null) = (${t.resolution} is null)`),
  ],
);

/** A person's chosen channel for one kind of notice; no row means the kind's default. */
export const notificationPreferences = pgTable(
  "notification_preferences",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").$type<NoticeKind>().notNull(),
    channel: text("channel").$type<NoticeChannel>().notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.kind] }),
    check(
      "notification_preferences_kind_check",
      sql`${t.kind} in ('step_waiting', 'moc_decision', 'reminder', 'action', 'chat_mention', 'pcr_signature')`,
    ),
    check("notification_preferences_channel_check", sql`${t.channel} in ('email', 'digest', 'in_app', 'off')`),
    check("notification_preferences_floor_check", sql`not (${t.kind} = 'step_waiting' and ${t.channel} = 'off')`),
    // A step waiting on the person is their work: told at once, never a day later (migration 0039).
    check(
      "notification_preferences_digest_floor_check",
      sql`not (${t.kind} = 'step_waiting' and ${t.channel} = 'digest')`,
    ),
  ],
);

/** Fixed-window counters shared by every instance (login failures, /api/verify). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull(),
  resetAt: timestamp("reset_at", { withTimezone: true }).notNull(),
});

/**
 * Delegations (docs/decisions/023-temporary-changes-and-delegation.md): from `starts_on` to
 * `ends_on` (UTC dates, both included) `delegate_id` may act for `user_id` on the steps waiting on
 * them. Never to oneself (the check); never overlapping for one person (refused by the model, under
 * a lock on that person's row). Ending one early sets `ended_at`; rows are kept for the record.
 */
export const delegations = pgTable(
  "delegations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    delegateId: uuid("delegate_id")
      .notNull()
      .references(() => users.id),
    startsOn: date("starts_on", { mode: "string" }).notNull(),
    endsOn: date("ends_on", { mode: "string" }).notNull(),
    /** Ended early: from then on it counts for nothing (the period stays, for the record). */
    endedAt: timestamp("ended_at", { withTimezone: true }),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("delegations_user_idx").on(t.userId, t.startsOn),
    index("delegations_delegate_idx").on(t.delegateId, t.startsOn),
    check("delegations_not_self_check", sql`${t.userId} <> ${t.delegateId}`),
    check("delegations_period_check", sql`${t.startsOn} <= ${t.endsOn}`),
  ],
);
