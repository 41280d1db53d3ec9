import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { PcrRole, PcrStatus } from "./enums";
import { chatRooms } from "./mocs";
import { users } from "./users";

/** One slot of the chain as stored; the API shows `Signature` as false (unsigned), null (comment only) or the signature. */
export type StoredSignature = {
  Name: PcrRole;
  state: "unsigned" | "commented" | "signed";
  /** A PNG data URL (drawn) or the typed full name. */
  signature: string | null;
  signatureDate: string | null;
  Comments: string;
  signedBy: string | null;
  commentedBy: string | null;
  /** The absent slot holder a delegate signed for (docs/decisions/023-temporary-changes-and-delegation.md). */
  onBehalfOf?: string | null;
};

export type StoredAffectedParty = {
  userId: string;
  state: "unsigned" | "commented" | "signed";
  signature: string | null;
  signatureDate: string | null;
  Comments: string;
};

export type PcrForm = {
  originator: string;
  /** Absent on PCRs raised before titles (docs/decisions/036-vessels-and-crew-access.md). */
  title?: string;
  "new-suggestion": boolean;
  "procedure-change": boolean;
  "safety-critical": boolean;
  "manual-procedure": string;
  "suggestion-details": string;
  "reason-for-change": string;
};

/** An admin-named substitute for one position slot of a PCR. */
export type PcrSubstitute = { role: string; userId: string; namedBy: string; namedAt: string };

export const pcrs = pgTable(
  "pcrs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    serialNum: text("serial_num").notNull(),
    serialYear: integer("serial_year").notNull(),
    serialCount: integer("serial_count").notNull(),
    status: text("status").$type<PcrStatus>().notNull().default("pending"),
    cloned: boolean("cloned").notNull().default(false),
    previousSerialNum: text("previous_serial_num"),
    originatorId: uuid("originator_id")
      .notNull()
      .references(() => users.id),
    form: jsonb("form").$type<PcrForm>().notNull(),
    signatures: jsonb("signatures").$type<StoredSignature[]>().notNull(),
    affectedParties: jsonb("affected_parties").$type<StoredAffectedParty[]>().notNull().default([]),
    /** Affected parties' user ids, for the visibility filter (kept in step with affected_parties). */
    partyIds: uuid("party_ids")
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    chatId: uuid("chat_id")
      .notNull()
      .references(() => chatRooms.id),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** When a signed PCR was withdrawn (it is never deleted once signed; docs/decisions/026). */
    withdrawnAt: timestamp("withdrawn_at", { withTimezone: true }),
    /**
     * People an admin named to sign a position's slot of this PCR when nobody else can (its
     * originator holds that position; docs/decisions/026-four-eyes-by-record.md).
     */
    substitutes: jsonb("substitutes").$type<PcrSubstitute[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("pcrs_chat_key").on(t.chatId),
    uniqueIndex("pcrs_serial_key").on(t.serialNum),
    uniqueIndex("pcrs_serial_year_count_key").on(t.serialYear, t.serialCount),
    index("pcrs_created_idx").on(t.createdAt),
    index("pcrs_originator_idx").on(t.originatorId),
    index("pcrs_party_ids_idx").using("gin", t.partyIds),
    check("pcrs_status_check", sql`${t.status} in ('pending', 'finished', 'withdrawn')`),
  ],
);
