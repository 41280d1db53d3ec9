/**
 * Legacy (paper-era) MOC and PCR records (docs/decisions/010-legacy-archive.md): the two kinds, their fields,
 * and the input rules shared by /api/oldMoc, /api/oldPcr, the archive pages and the CSV import.
 * Plain module: the pages validate in the browser with the same schemas, loaded when a form is
 * first used; the kinds, labels and limits the pages show live in ./archive.constants.ts.
 */
import { z } from "zod";
import { bidiControlMessage, hasBidiControl, searchQuerySchema } from "../shared/text-rules";
import { LEGACY_STATUSES, type LegacyStatus } from "#db/schema/enums";
import {
  ARCHIVE,
  ARCHIVE_LIMITS,
  ARCHIVE_SORTS,
  isRequiredField,
  type ArchiveField,
  type ArchiveInput,
  type ArchiveKind,
  type ArchivePatch,
} from "./archive.constants";
import { uuid } from "../shared/fields.schema";

export * from "./archive.constants";

// ---------------------------------------------------------------------------------------------
// Field rules

// Control characters: none in one-line fields; tabs and line breaks only in long text.
// (PostgreSQL refuses NUL in text, so these never reach it.)
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const SERIAL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._/#-]*$/;

const textOf = (required: string, notText: string) =>
  z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? required : notText) });

/** A one-line text. */
const line = (what: string, max: number, required: boolean) =>
  textOf(`Enter the ${what}`, `The ${what} must be text`)
    .trim()
    .min(required ? 1 : 0, { error: `Enter the ${what}` })
    .max(max, { error: `The ${what} can be at most ${max} characters` })
    .refine((v) => !LINE_CONTROL.test(v), { error: `The ${what} must be one line of plain text` })
    .refine((v) => !hasBidiControl(v), { error: bidiControlMessage(`The ${what}`) });

/** Long plain text (kept as typed, shown as text, never as HTML). */
const longText = (what: string) =>
  textOf(`Enter the ${what}`, `The ${what} must be text`)
    // Browsers post a text box's line breaks as CRLF; store them as \n whatever the client.
    .overwrite((v) => v.replace(/\r\n?/g, "\n"))
    .trim()
    .max(ARCHIVE_LIMITS.text, { error: `The ${what} can be at most ${ARCHIVE_LIMITS.text} characters` })
    .refine((v) => !TEXT_CONTROL.test(v), { error: `The ${what} contains characters that are not text` });

/** Today in UTC plus a day, so that a record raised "today" anywhere on Earth is accepted. */
export const latestDate = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

const dateField = (what: string) =>
  textOf(`Enter the ${what} (YYYY-MM-DD)`, `The ${what} must be a date (YYYY-MM-DD)`)
    .trim()
    .pipe(
      z.iso
        .date({ error: `The ${what} must be a real date written YYYY-MM-DD`, abort: true })
        .refine((d) => d >= ARCHIVE_LIMITS.earliest, { error: `The ${what} cannot be before 1900` })
        .refine((d) => d <= latestDate(), { error: `The ${what} cannot be in the future` }),
    );

export function isWebLink(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" && !url.username;
  } catch {
    return false;
  }
}

const attachmentUrl = textOf("Enter the attachment's link", "An attachment must be a link (text)")
  .trim()
  .max(ARCHIVE_LIMITS.url, { error: `A link can be at most ${ARCHIVE_LIMITS.url} characters` })
  .refine(isWebLink, { error: "An attachment must be an http:// or https:// link" });

const attachmentList = z
  .array(attachmentUrl, { error: "attachments must be a list of links" })
  .max(ARCHIVE_LIMITS.attachments, { error: `At most ${ARCHIVE_LIMITS.attachments} attachments per record` });

const FIELD_RULES = {
  serial_num: line("serial number", ARCHIVE_LIMITS.serial, true).refine((v) => v === "" || SERIAL_PATTERN.test(v), {
    error: "The serial number may hold letters, digits, spaces and . _ / # - only, starting with a letter or digit",
  }),
  title: line("title", ARCHIVE_LIMITS.title, true),
  description: longText("description"),
  department: line("department", ARCHIVE_LIMITS.department, false),
  procedure: longText("procedure"),
  originator_name: line("originator's name", ARCHIVE_LIMITS.name, true),
  date_raised: dateField("date raised"),
  // An empty closing date means none (forms and CSV cells send "").
  date_closed: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? null : v),
    dateField("closing date").nullable(),
  ),
  status: z.enum(LEGACY_STATUSES, { error: "The status must be open or closed" }),
  attachments: attachmentList,
  notes: longText("notes"),
} satisfies Record<ArchiveField, z.ZodType>;

/** Keys a client may send back from a document it read; they are ignored. */
const READ_ONLY = {
  createdAt: z.unknown().optional(),
  updatedAt: z.unknown().optional(),
  created_by: z.unknown().optional(),
  updated_by: z.unknown().optional(),
};

type Issue = { path: string; message: string };
type DatesAndStatus = { date_raised?: string; date_closed?: string | null; status?: LegacyStatus };

/**
 * The rules across fields: closed on or after raised; a closed record has its closing date and an
 * open one has none. (A missing status is derived from the closing date: see `withDefaults`.)
 */
export function recordIssues(record: DatesAndStatus): Issue[] {
  const issues: Issue[] = [];
  // Also run on input whose fields failed on their own (to show every problem at once), so only
  // well-formed values are compared.
  const raised = isIsoDate(record.date_raised) ? record.date_raised : null;
  const closed = isIsoDate(record.date_closed) ? record.date_closed : null;
  const closedGiven = record.date_closed !== null && record.date_closed !== undefined && record.date_closed !== "";
  if (closed && raised && closed < raised) {
    issues.push({ path: "date_closed", message: "The closing date cannot be before the date raised" });
  }
  if (record.status === "closed" && !closedGiven) {
    issues.push({ path: "date_closed", message: "A closed record needs its closing date" });
  }
  if (record.status === "open" && closedGiven) {
    issues.push({ path: "status", message: "An open record has no closing date: choose closed, or clear the date" });
  }
  return issues;
}

const isIsoDate = (value: unknown): value is string => typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** Cross-field checks run even when a field failed, as long as the input is an object. */
const refineRecord = z.superRefine<unknown>(
  (record, ctx) => {
    for (const issue of recordIssues(record as DatesAndStatus)) {
      ctx.addIssue({ code: "custom", path: [issue.path], message: issue.message });
    }
  },
  { when: (payload) => typeof payload.value === "object" && payload.value !== null && !Array.isArray(payload.value) },
);

/** Fills what a full record leaves out: empty texts, no attachments, status from the closing date. */
export function withDefaults(kind: ArchiveKind, input: Partial<ArchiveInput>): ArchiveInput {
  const out: ArchiveInput = {
    serial_num: input.serial_num ?? "",
    title: input.title ?? "",
    originator_name: input.originator_name ?? "",
    date_raised: input.date_raised ?? "",
    date_closed: input.date_closed ?? null,
    status: input.status ?? (input.date_closed ? "closed" : "open"),
    attachments: input.attachments ?? [],
    notes: input.notes ?? "",
  };
  if (kind === "moc") Object.assign(out, { description: input.description ?? "", department: input.department ?? "" });
  else out.procedure = input.procedure ?? "";
  return out;
}

function shapeOf(kind: ArchiveKind, optionalAll: boolean) {
  return Object.fromEntries(
    ARCHIVE[kind].fields.map((f) => [
      f,
      optionalAll || !isRequiredField(f) ? FIELD_RULES[f].optional() : FIELD_RULES[f],
    ]),
  ) as Partial<Record<ArchiveField, z.ZodType>>;
}

/** Unknown keys are refused by name (a typo such as `date_close` would otherwise be lost). */
const strictFor = (kind: ArchiveKind) => ({
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys"
      ? `Unknown field${issue.keys!.length > 1 ? "s" : ""} ${issue.keys!.join(", ")}; a ${ARCHIVE[kind].label} has ${ARCHIVE[kind].fields.join(", ")}`
      : undefined,
});

const build = (kind: ArchiveKind) => {
  const record = z.strictObject({ ...shapeOf(kind, false), ...READ_ONLY }, strictFor(kind)).check(refineRecord);
  const fill = (r: unknown) => withDefaults(kind, r as Partial<ArchiveInput>);
  /** Some fields, merged into the stored record: `_id` names it (PUT) or, when sent, must be the path's (PATCH). */
  const someFields = (id: z.ZodType<string | undefined>) =>
    z
      .strictObject({ _id: id, ...shapeOf(kind, true), ...READ_ONLY }, strictFor(kind))
      .refine((r) => ARCHIVE[kind].fields.some((f) => r[f] !== undefined), {
        error: `Send at least one of: ${ARCHIVE[kind].fields.join(", ")}`,
      })
      .transform((r) => {
        const out: ArchivePatch & { _id?: string } = {};
        for (const f of ARCHIVE[kind].fields) if (r[f] !== undefined) Object.assign(out, { [f]: r[f] });
        const { _id } = r as { _id?: string };
        if (_id) out._id = _id;
        return out;
      });
  return {
    /** POST: a new record. */
    create: record.transform(fill) as z.ZodType<ArchiveInput>,
    /** PUT: `_id` and the fields to change; the others keep their stored values (as PATCH). */
    replace: someFields(uuid("legacy record id")) as z.ZodType<ArchivePatch & { _id: string }>,
    /** PATCH: some fields (`_id`, when sent, must be the path's). */
    patch: someFields(uuid("legacy record id").optional()) as z.ZodType<ArchivePatch & { _id?: string }>,
  };
};

export const archiveSchemas = { moc: build("moc"), pcr: build("pcr") };

/**
 * Applies the fields sent to the stored record. `status` is derived from `date_closed` (closed
 * exactly when there is a closing date: docs/api-contract.md, "Legacy records"): left out, it
 * follows the merged closing date; sent, it must agree with it, or the write is refused
 * (`recordIssues`), so `{ "date_closed": null }` reopens and `{ "status": "open" }` alone on a
 * closed record is a 400.
 */
export function mergePatch(current: ArchiveInput, patch: ArchivePatch): ArchiveInput {
  const merged = { ...current, ...patch };
  if (patch.status === undefined) merged.status = merged.date_closed ? "closed" : "open";
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Pages

/** The attachments box of the form: one link per line. */
export const splitLines = (text: string) =>
  text
    .split(/\r\n|\r|\n/)
    .map((s) => s.trim())
    .filter(Boolean);

const attachmentsText = z
  .string()
  .max(ARCHIVE_LIMITS.attachments * (ARCHIVE_LIMITS.url + 2))
  .optional()
  .superRefine((text, ctx) => {
    const links = splitLines(text ?? "");
    if (links.length > ARCHIVE_LIMITS.attachments) {
      ctx.addIssue({ code: "custom", message: `At most ${ARCHIVE_LIMITS.attachments} attachments per record` });
    }
    links.forEach((link, i) => {
      const parsed = attachmentUrl.safeParse(link);
      if (!parsed.success)
        ctx.addIssue({ code: "custom", message: `Link ${i + 1}: ${parsed.error.issues[0]!.message}` });
    });
  })
  .transform((text) => splitLines(text ?? ""));

/** The new/edit form as the pages post it: attachments in a text box, status chosen. */
const pageSchema = (kind: ArchiveKind): z.ZodType<ArchiveInput> =>
  z
    .object({ ...shapeOf(kind, false), status: FIELD_RULES.status, attachments: attachmentsText })
    .check(refineRecord)
    .transform((r) => withDefaults(kind, r as Partial<ArchiveInput>));

export const archivePageSchemas = { moc: pageSchema("moc"), pcr: pageSchema("pcr") };

/** The list page's query string; anything malformed falls back to no filter. */
export const archiveFilterSchema = z.object({
  q: searchQuerySchema,
  status: z.enum(LEGACY_STATUSES).optional().catch(undefined),
  department: z.string().max(ARCHIVE_LIMITS.department).optional().catch(undefined),
  year: z.coerce.number().int().min(1900).max(2200).optional().catch(undefined),
  sort: z.enum(ARCHIVE_SORTS).default("raised").catch("raised"),
  dir: z.enum(["asc", "desc"]).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1),
});
export type ArchiveFilter = z.infer<typeof archiveFilterSchema>;

// ---------------------------------------------------------------------------------------------
// CSV import
