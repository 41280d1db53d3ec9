/**
 * Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md): the bodies
 * of POST /api/circulations and POST /api/acknowledge, the queries of GET /api/circulations and
 * GET /api/myAcknowledgements, and the page forms, one schema each shared by page and /api. No I/O.
 */
import { z } from "zod";
import { DEPARTMENTS } from "#db/schema/enums";
import { withoutBidiControls } from "../shared/text-rules";

import {
  CIRCULATION_TEXT_MAX,
  MAX_CIRCULATION_PAGE,
  RECIPIENT_STATE_WORDS,
  RECIPIENTS_PAGE_SIZE,
} from "./circulations.constants";

export { CIRCULATION_TEXT_MAX, MAX_CIRCULATION_PAGE, RECIPIENT_STATE_WORDS, RECIPIENTS_PAGE_SIZE };

/** "moc:<uuid>" or "pcr:<uuid>". */
export const RECORD_REF = /^(moc|pcr):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
export const RECORD_REF_MESSAGE = 'Expected the record as "moc:<id>" or "pcr:<id>"';

export const recordRefText = z
  .string({ error: RECORD_REF_MESSAGE })
  .trim()
  .regex(RECORD_REF, { error: RECORD_REF_MESSAGE })
  .meta({ example: "pcr:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b", description: 'The record: "moc:<id>" or "pcr:<id>".' });

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Plain text (shown as typed, never as markup): trimmed, at most 2,000 characters, no bidi controls. */
const plainText = (what: string, required: boolean) =>
  withoutBidiControls(
    z
      .string({ error: `${what} is required` })
      .trim()
      .min(required ? 1 : 0, { error: `${what} is required` })
      .max(CIRCULATION_TEXT_MAX, { error: `${what} must be at most ${CIRCULATION_TEXT_MAX} characters` })
      // eslint-disable-next-line no-control-regex
      .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(v), {
        error: `${what} must be plain text (no control characters)`,
      }),
    what,
  );

/** A checkbox group or a JSON array: one value becomes a list of one; absent, an empty list. */
const list = <T extends z.ZodType>(item: T, max: number, what: string) =>
  z
    .preprocess(
      (v) => (v === null || v === "" ? [] : Array.isArray(v) ? v : [v]),
      z.array(item).max(max, { error: `At most ${max} ${what}` }),
    )
    .default([]);

/** POST /api/circulations and the /circulations/new form. */
export const circulationBodySchema = z
  .object({
    record: recordRefText,
    vessels: list(z.uuid({ error: "Expected a vessel id" }), 200, "vessels").meta({
      description: "Vessels whose crew (everyone assigned to them, today or from a later day) it reaches.",
    }),
    ranks: list(z.string().trim().min(1, { error: "A rank cannot be empty" }).max(60), 50, "ranks").meta({
      description: "Only these ranks of the vessels' crews (names of the rank list); empty or absent: every rank.",
    }),
    departments: list(
      z.enum(DEPARTMENTS, { error: `Expected one of ${DEPARTMENTS.join(", ")}` }),
      4,
      "departments",
    ).meta({
      description: "Office departments: every active person of each.",
    }),
    due: z.iso
      .date({ error: "Expected a date (YYYY-MM-DD)" })
      .refine((d) => d >= todayUtc(), { error: "The due date cannot be in the past" }),
    note: plainText("The note of what changed", true),
  })
  .refine((c) => c.vessels.length > 0 || c.departments.length > 0, {
    path: ["vessels"],
    error: "Name at least one vessel or one department",
  });
export type CirculationInput = z.infer<typeof circulationBodySchema>;

/** POST /api/acknowledge and the acknowledge form. */
export const acknowledgeBodySchema = z.object({
  circulation_id: z.uuid({ error: "Expected a circulation id" }),
  comment: plainText("The comment", false)
    .nullable()
    .optional()
    .meta({ description: "A question or comment for the author (optional), kept as plain text." }),
});

/** The acknowledge page's form (the circulation is the page's). */
export const acknowledgeFormSchema = z.object({
  comment: plainText("The comment", false).optional(),
});

/** GET /api/circulations?record=. */
export const circulationsQuerySchema = z.object({ record: recordRefText });

/** `?page=&limit=` of GET /api/myAcknowledgements (numbered pages, like the pages' lists). */
export const acknowledgementsPageQuery = z.object({
  page: z.coerce
    .number({ error: "page must be a whole number from 1" })
    .int({ error: "page must be a whole number from 1" })
    .min(1, { error: "page must be a whole number from 1" })
    .optional()
    .meta({ description: "The page, from 1 (default 1)." }),
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_CIRCULATION_PAGE}` })
    .int({ error: `limit must be a whole number from 1 to ${MAX_CIRCULATION_PAGE}` })
    .min(1, { error: `limit must be a whole number from 1 to ${MAX_CIRCULATION_PAGE}` })
    .max(MAX_CIRCULATION_PAGE, { error: `limit must be a whole number from 1 to ${MAX_CIRCULATION_PAGE}` })
    .optional()
    .meta({ description: `Page size (1 to ${MAX_CIRCULATION_PAGE}, default ${RECIPIENTS_PAGE_SIZE}).` }),
});

// ---------------------------------------------------------------------------------------------
// Answers (the OpenAPI document)

const ref = z.object({ _id: z.string(), name: z.string() });
const recordAnswer = z.object({
  kind: z.enum(["moc", "pcr"]),
  _id: z.string(),
  label: z.string().meta({ example: "PCR 12-2026" }),
  title: z.string(),
  href: z.string().meta({ example: "/pcrs/0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b" }),
});
const STATES = ["acknowledged", "waiting", "overdue", "left"] as const;
const counts = {
  total: z.number().int(),
  acknowledged: z.number().int(),
  waiting: z.number().int(),
  overdue: z.number().int(),
  left: z.number().int(),
};
const person = z.object({ _id: z.string(), name: z.string(), rank: z.string().nullable() });

export const circulationAnswer = z.object({
  _id: z.string(),
  record: recordAnswer,
  vessels: z.array(ref),
  ranks: z.array(z.string()),
  departments: z.array(z.string()),
  due: z.string(),
  note: z.string(),
  createdBy: ref,
  createdAt: z.string(),
  closedAt: z.string().nullable(),
});

export const circulationTrackingAnswer = z.object({
  circulation: circulationAnswer,
  totals: z.object(counts),
  byVesselAndRank: z.array(z.object({ vessel: ref.nullable(), rank: z.string().nullable(), ...counts })),
  recipients: z
    .array(
      z.object({
        user: person,
        vessel: ref.nullable(),
        due: z.string(),
        state: z.enum(STATES),
        acknowledgedAt: z.string().nullable(),
        comment: z.string().nullable(),
      }),
    )
    .meta({ description: "The first page of recipients (50), by vessel, rank and name." }),
  questions: z.array(z.object({ user: person, vessel: ref.nullable(), at: z.string(), comment: z.string() })),
});

export const acknowledgeAnswer = z.object({
  acknowledged: z.literal(true),
  at: z.string(),
  created: z.boolean().meta({ description: "False when the person had acknowledged already (nothing changed)." }),
});

export const pendingAcknowledgementsAnswer = z.object({
  items: z.array(
    z.object({
      circulationId: z.string(),
      record: recordAnswer,
      note: z.string(),
      due: z.string(),
      overdue: z.boolean(),
      vessel: ref.nullable(),
    }),
  ),
  total: z.number().int(),
});
