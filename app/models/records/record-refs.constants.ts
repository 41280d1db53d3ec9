/**
 * Records named as "<kind>:<id>" (issue 42, docs/decisions/057-record-links-and-references.md): the
 * kinds that may be named this way, the pattern and its messages, without zod or the server, so pages
 * read them in the browser too. Parsing and describing: record-refs.server.ts.
 */

/** The kinds a record reference may name (their names in the record-kind registry). */
export const RECORD_REF_KINDS = ["moc", "pcr", "archive-moc", "archive-pcr", "review"] as const;
export type RecordRefKind = (typeof RECORD_REF_KINDS)[number];

/** A record named by its kind and id. */
export type RecordRef = { kind: RecordRefKind; id: string };

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const RECORD_REF_FORMAT = `"<kind>:<id>", the kind one of ${RECORD_REF_KINDS.join(", ")}`;
export const RECORD_REF_MESSAGES = {
  format: `Expected a record as ${RECORD_REF_FORMAT}`,
  kind: (kind: string) =>
    `"${kind}" is not a kind of record that can be named here; expected one of ${RECORD_REF_KINDS.join(", ")}`,
  id: (id: string) => `"${id}" is not a record id (a UUID such as 0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b)`,
} as const;

/** The text form of a reference: "moc:<uuid>". */
export const recordRefText = (ref: RecordRef) => `${ref.kind}:${ref.id}`;

export const isRecordRefKind = (kind: string): kind is RecordRefKind =>
  (RECORD_REF_KINDS as readonly string[]).includes(kind);

/**
 * "<kind>:<id>" as a reference, or the message saying what is wrong with it (the server's
 * `parseRecordRef` throws it as a 400).
 */
export function readRecordRef(text: unknown): { ok: true; ref: RecordRef } | { ok: false; message: string } {
  const value = typeof text === "string" ? text.trim() : "";
  const colon = value.indexOf(":");
  if (colon <= 0) return { ok: false, message: RECORD_REF_MESSAGES.format };
  const kind = value.slice(0, colon).toLowerCase();
  const id = value.slice(colon + 1).toLowerCase();
  if (!isRecordRefKind(kind)) return { ok: false, message: RECORD_REF_MESSAGES.kind(value.slice(0, colon)) };
  if (!UUID_PATTERN.test(id)) return { ok: false, message: RECORD_REF_MESSAGES.id(value.slice(colon + 1)) };
  return { ok: true, ref: { kind, id } };
}
