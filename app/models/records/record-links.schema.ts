/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md): the body of
 * POST /api/links and the queries of GET and DELETE /api/links, shared by the pages. No I/O.
 */
import { z } from "zod";
import { LINK_KIND_MESSAGE, LINK_KINDS } from "./record-links.constants";
import { recordRefSchema } from "./record-refs.server";

export const linkKindSchema = z
  .enum(LINK_KINDS, { error: LINK_KIND_MESSAGE })
  .meta({ description: "`from` <kind> `to`: the other record reads the inverse (followed up by, replaced by, ...)." });

export const newLinkSchema = z
  .object({ from: recordRefSchema, to: recordRefSchema, kind: linkKindSchema })
  .meta({ title: "NewLink" });
export type NewLink = z.infer<typeof newLinkSchema>;

export const linksQuerySchema = z.object({ record: recordRefSchema });

export const linkIdQuerySchema = z.object({
  id: z.uuid({ error: "Expected the link's id (a UUID)" }).meta({ description: "The link's id." }),
});

// ---------------------------------------------------------------------------------------------
// Answers (the OpenAPI description, app/web/openapi/links.ts)

const person = z.object({ _id: z.string(), name: z.string() });

/** A link as stored: POST and DELETE /api/links. */
export const linkAnswer = z.object({
  _id: z.string(),
  from: z.string().meta({ description: 'The record the kind reads from: "<kind>:<id>".' }),
  to: z.string(),
  kind: linkKindSchema,
  createdBy: person.nullable(),
  createdAt: z.string(),
  removedBy: person.nullable(),
  removedAt: z.string().nullable(),
});

export const newLinkAnswer = linkAnswer.extend({
  created: z.boolean().meta({
    description: "false: the same active link existed (a replay, or made at the same time); nothing changed.",
  }),
});

const linkEnd = z.object({
  ref: z.string(),
  kind: z.enum(["moc", "pcr", "archive-moc", "archive-pcr", "review"]),
  id: z.string(),
  label: z.string().meta({ example: "MOC 14-2026" }),
  title: z.string(),
  path: z.string().meta({ description: "The record's page.", example: "/mocs/0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b" }),
});

/** GET /api/links: the record asked about and its links the caller may see, each from its side. */
export const linksAnswer = z.object({
  record: linkEnd,
  links: z.array(
    z.object({
      _id: z.string(),
      kind: linkKindSchema,
      seen: z.string().meta({
        description:
          'The kind as the asked record reads it: the kind itself from `from`, its inverse ("changes the procedure of", "followed up by", "replaced by", "related") from `to`.',
      }),
      from: linkEnd,
      to: linkEnd,
      other: linkEnd,
      createdBy: person.nullable(),
      createdAt: z.string(),
      mayRemove: z.boolean(),
    }),
  ),
});
