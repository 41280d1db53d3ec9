/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md): the kinds (the
 * API's values) and how each reads from either end, without zod or the server, for the pages.
 */
import type { RecordRef } from "./record-refs.constants";

/** A link's kind: `from` <kind> `to` ("MOC 14-2026 procedure changed by PCR 3-2026"). The API's values. */
export const LINK_KINDS = ["procedure changed by", "follow-up of", "replaces", "related"] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** How the record at the other end (`to`) reads the link. */
export const LINK_INVERSE: Record<LinkKind, string> = {
  "procedure changed by": "changes the procedure of",
  "follow-up of": "followed up by",
  replaces: "replaced by",
  related: "related",
};

/** The link's words as seen from one of its ends. */
export const linkWording = (kind: LinkKind, seenFrom: "from" | "to") =>
  seenFrom === "from" ? kind : LINK_INVERSE[kind];

/**
 * What the add-a-link form offers from a record: each kind from this record ("this record
 * <words> that one") and, but for "related", its inverse (which makes that record the link's `from`).
 */
export const LINK_CHOICES: { words: string; kind: LinkKind; inverse: boolean }[] = [
  ...LINK_KINDS.map((kind) => ({ words: kind, kind, inverse: false })),
  ...LINK_KINDS.filter((kind) => kind !== "related").map((kind) => ({
    words: LINK_INVERSE[kind],
    kind,
    inverse: true,
  })),
];

/** The link a choice makes between `here` and `there`. */
export function linkOfChoice(words: string, here: RecordRef, there: RecordRef) {
  const choice = LINK_CHOICES.find((c) => c.words === words);
  if (!choice) return null;
  return choice.inverse ? { from: there, to: here, kind: choice.kind } : { from: here, to: there, kind: choice.kind };
}

export const LINK_KIND_MESSAGE = `Expected the link's kind, one of: ${LINK_KINDS.map((k) => `"${k}"`).join(", ")}`;
