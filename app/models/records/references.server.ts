/**
 * External references (issue 42, docs/decisions/057-record-links-and-references.md).
 *
 * Reference types: the list admins keep (/admin/references), in order, each with an optional URL
 * template; each change is one transaction with its entry in the settings chain (record
 * REFERENCE_TYPES_RECORD), as the ranks' are (ranks.server.ts). A deactivated type stays on the
 * references that carry it but is no longer offered.
 *
 * References on records: a MOC, PCR, archive record or year-end review (named "<kind>:<id>",
 * record-refs.server.ts) carries typed references ("PMS work order WO-1234"). Reading them is
 * reading the record; adding and removing them is `canManageReferences` (authz.server.ts). Each
 * addition and removal is one transaction with its entry in the record's own chain (a MOC's
 * `moc_logs`, the others' `audit_entries`). A second live reference of the same type and number
 * (without case) on a record is refused (409), concurrent ones by the unique index.
 */
import { sql } from "drizzle-orm";
import { referenceTypes } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, databaseErrorCode, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { appendAudit } from "../audit/audit.server";
import { canManageReferences, canManageReferenceTypes, type Actor, type ReferencedRecord } from "../authz/authz.server";
import { loadRecordOfKind, noteInTrail, recordKind } from "../record-kind/record-kind";
import { movedText, moveInList } from "../shared/ordered-list";
import {
  describeRecord,
  parseRecordRef,
  recordRefText,
  type RecordRef,
  type RecordRefKind,
} from "./record-refs.server";
import { REFERENCE_TYPES_RECORD, referenceText, referenceUrl } from "./references.constants";
import { UUID_PATTERN } from "./record-refs.constants";
import {
  addReferenceSchema,
  referenceTypeActionSchema,
  referenceTypeNameSchema,
  type ReferenceTypeAction,
} from "./references.schema";

export { REFERENCE_TYPES_RECORD, referenceText, referenceUrl };

// ---------------------------------------------------------------------------------------------
// Reference types

export type ReferenceTypeRow = {
  id: string;
  name: string;
  urlTemplate: string | null;
  sort: number;
  active: boolean;
  /** How many live references carry it. */
  uses: number;
};

/** Every reference type in the list's order, with how many live references carry it (one query). */
export async function listReferenceTypes(db: Executor = getDb()): Promise<ReferenceTypeRow[]> {
  const rows = await db.execute<ReferenceTypeRow>(sql`select t.id, t.name, t.url_template as "urlTemplate", t.sort,
      t.active, (select count(*)::int from record_references r where r.type_id = t.id and r.removed_at is null) as uses
    from reference_types t order by t.sort, t.name`);
  return [...rows];
}

const typesAudit = (db: Executor, actor: Actor, action: string, from: string | null, to: string | null) =>
  appendAudit(db, { kind: "settings", recordId: REFERENCE_TYPES_RECORD, actorId: actor._id, action, from, to });

const taken = (name: string) => {
  const message = `There is already a reference type named “${name}”`;
  return new Invalid(message, [{ path: "name", message }]);
};

/**
 * An admin's change to the list: add (at the end), rename, set or clear the URL template, move up
 * or down, deactivate or reactivate. One transaction under the list's lock, with its audit entry;
 * a change that changes nothing writes nothing. Returns what it did. 400 for a bad name or
 * template (a template is an http(s) address containing `{ref}`), 404 for an unknown type.
 */
export async function changeReferenceTypes(actor: Actor, raw: ReferenceTypeAction): Promise<string> {
  if (!canManageReferenceTypes(actor)) throw new Forbidden("Only an admin can change the reference types");
  const parsed = referenceTypeActionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message = issue?.message ?? "That change was not understood";
    throw new Invalid(message, [{ path: String(issue?.path[0] ?? "intent"), message }]);
  }
  const input = parsed.data;
  return getDb().transaction(async (tx) => {
    const list = [
      ...(await tx.execute<{ id: string; name: string; url_template: string | null; sort: number; active: boolean }>(
        sql`select id, name, url_template, sort, active from reference_types order by sort, name for update`,
      )),
    ];
    if (input.intent === "add") {
      const name = referenceTypeNameSchema.parse(input.name);
      if (list.some((t) => t.name.toLowerCase() === name.toLowerCase())) throw taken(name);
      const sort = (list.at(-1)?.sort ?? 0) + 10;
      await tx.insert(referenceTypes).values({ name, sort, urlTemplate: input.template ?? null });
      await typesAudit(
        tx,
        actor,
        "Added a reference type",
        null,
        input.template ? `${name} (${input.template})` : name,
      );
      return `${name} is added at the end of the list.`;
    }
    const index = list.findIndex((t) => t.id === input.type);
    const row = list[index];
    if (!row) throw new NotFound("There is no such reference type; the list may have changed, reload it");
    switch (input.intent) {
      case "rename": {
        if (input.name === row.name) return `${row.name} is unchanged.`;
        if (list.some((t) => t !== row && t.name.toLowerCase() === input.name.toLowerCase())) throw taken(input.name);
        await tx.execute(sql`update reference_types set name = ${input.name} where id = ${row.id}`);
        await typesAudit(tx, actor, "Renamed a reference type", row.name, input.name);
        return `${row.name} is now ${input.name}, on every reference that carries it.`;
      }
      case "template": {
        if (input.template === row.url_template) return `${row.name}'s link is unchanged.`;
        await tx.execute(sql`update reference_types set url_template = ${input.template} where id = ${row.id}`);
        await typesAudit(
          tx,
          actor,
          input.template ? `Set the URL template of ${row.name}` : `Removed the URL template of ${row.name}`,
          row.url_template,
          input.template,
        );
        return input.template
          ? `${row.name}'s references now link to ${input.template}.`
          : `${row.name}'s references are no longer links.`;
      }
      case "up":
      case "down": {
        const moved = moveInList(list, index, input.intent);
        if (!moved) return `${row.name} is already ${input.intent === "up" ? "first" : "last"}.`;
        for (const [t, sort] of moved.sorts)
          await tx.execute(sql`update reference_types set sort = ${sort} where id = ${t.id}`);
        const text = movedText(row.name, input.intent, moved.other.name);
        await typesAudit(tx, actor, `Moved a reference type ${input.intent}`, null, text);
        return `${row.name} is moved ${input.intent}.`;
      }
      case "deactivate":
      case "activate": {
        const active = input.intent === "activate";
        if (row.active === active) return `${row.name} is already ${active ? "offered" : "deactivated"}.`;
        await tx.execute(sql`update reference_types set active = ${active} where id = ${row.id}`);
        await typesAudit(
          tx,
          actor,
          active ? "Reactivated a reference type" : "Deactivated a reference type",
          null,
          row.name,
        );
        return active
          ? `${row.name} is offered again.`
          : `${row.name} is no longer offered; the references that carry it keep it.`;
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// References on records

/** A live reference as pages, print and the API show it. */
export type RecordReference = {
  id: string;
  /** "moc:<id>" */
  record: string;
  typeId: string;
  typeName: string;
  ref: string;
  /** The type's template with the number in it; null when the type has none. */
  url: string | null;
  addedBy: { _id: string; name: string } | null;
  addedAt: string;
};

type ReferenceRow = {
  id: string;
  record_kind: string;
  record_id: string;
  type_id: string;
  type_name: string;
  url_template: string | null;
  ref: string;
  added_by: string | null;
  added_by_name: string | null;
  added_at: string;
};

const toReference = (r: ReferenceRow): RecordReference => ({
  id: r.id,
  record: `${r.record_kind}:${r.record_id}`,
  typeId: r.type_id,
  typeName: r.type_name,
  ref: r.ref,
  url: referenceUrl(r.url_template, r.ref),
  addedBy: r.added_by ? { _id: r.added_by, name: r.added_by_name ?? "" } : null,
  addedAt: new Date(r.added_at).toISOString(),
});

/** The live references of the records `ids` of one kind, in the types' order, then by number (one query). */
export async function referencesOf(
  kind: RecordRefKind,
  ids: readonly string[],
  db: Executor = getDb(),
): Promise<Map<string, RecordReference[]>> {
  const out = new Map<string, RecordReference[]>();
  if (ids.length === 0) return out;
  const rows = await db.execute<ReferenceRow>(sql`select r.id, r.record_kind, r.record_id, r.type_id,
      t.name as type_name, t.url_template, r.ref, r.added_by, u.name as added_by_name, r.added_at
    from record_references r join reference_types t on t.id = r.type_id left join users u on u.id = r.added_by
    where r.record_kind = ${kind} and r.removed_at is null
      and r.record_id = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid))
    order by t.sort, t.name, lower(r.ref), r.added_at`);
  for (const row of rows) {
    const list = out.get(row.record_id) ?? [];
    list.push(toReference(row));
    out.set(row.record_id, list);
  }
  return out;
}

/**
 * The record as `canManageReferences` sees it (its kind's `load`: the access its predicates read),
 * and its status for the note in its chain; 404 for one that is not there (or a deleted MOC).
 */
async function referencedRecord(
  db: Executor,
  ref: RecordRef,
): Promise<{ record: ReferencedRecord; status: string | null }> {
  const loaded = await loadRecordOfKind<ReferencedRecord>(db, ref.kind, ref.id);
  if (!loaded) throw new NotFound(`No ${recordKind(ref.kind).label} with this id`);
  return { record: loaded.access, status: loaded.status };
}

/**
 * The record named by `text`, read by `actor`: 400 for a malformed name, 404 for a record that does
 * not exist, 403 for one the actor may not read.
 */
async function readableRecord(db: Executor, actor: Actor, text: unknown) {
  const ref = parseRecordRef(text);
  const described = await describeRecord(db, actor, ref);
  if (!described) throw new NotFound(`There is no record ${recordRefText(ref)}`);
  if (!described.readable) throw new Forbidden(`You may not read ${described.label}`);
  return { ref, described };
}

/** GET /api/references?record=: the record's live references, for those who may read it. */
export async function listReferences(actor: Actor, record: unknown): Promise<RecordReference[]> {
  const db = getDb();
  const { ref } = await readableRecord(db, actor, record);
  return (await referencesOf(ref.kind, [ref.id], db)).get(ref.id) ?? [];
}

/** What a record page shows: its references, the types offered, and whether the reader may change them. */
export async function referencesForPage(
  actor: Actor,
  ref: RecordRef,
  db: Executor = getDb(),
): Promise<{ references: RecordReference[]; types: { id: string; name: string }[]; mayManage: boolean }> {
  const [references, types, target] = await Promise.all([
    referencesOf(ref.kind, [ref.id], db),
    db.execute<{ id: string; name: string }>(
      sql`select id, name from reference_types where active order by sort, name`,
    ),
    referencedRecord(db, ref).catch(() => null),
  ]);
  return {
    references: references.get(ref.id) ?? [],
    types: [...types],
    mayManage: target ? canManageReferences(actor, target.record) : false,
  };
}

/**
 * One entry in the record's own chain, as its kind writes a note (a MOC's `moc_logs`, the number
 * as its comment; the others' `audit_entries`, the number as the value added or removed).
 */
const auditRecord = (
  tx: Executor,
  ref: RecordRef,
  status: string | null,
  actor: Actor,
  action: string,
  to: string | null,
  from: string | null,
) => noteInTrail(tx, ref.kind, { id: ref.id, status }, { actorId: actor._id, action, from, to });

/**
 * POST /api/references: adds a reference to a record. 400 for a bad body (the record's name, the
 * type, the number), 404 for an unknown record or type, 403 for a reader who may not change the
 * record's references (or may not read it), 409 when the record already carries it.
 */
export async function addReference(actor: Actor, body: unknown): Promise<RecordReference> {
  const parsed = addReferenceSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: String(i.path[0] ?? ""), message: i.message }));
    throw new Invalid(issues[0]?.message ?? "Invalid reference", issues);
  }
  const input = parsed.data;
  const db = getDb();
  const { ref, described } = await readableRecord(db, actor, input.record);
  try {
    return await db.transaction(async (tx) => {
      const { record, status } = await referencedRecord(tx, ref);
      if (!canManageReferences(actor, record)) {
        throw new Forbidden(`You may read ${described.label} but not change its references`);
      }
      const [type] = await tx.execute<{ id: string; name: string; url_template: string | null; active: boolean }>(
        sql`select id, name, url_template, active from reference_types
          where ${UUID_PATTERN.test(input.type) ? sql`id = ${input.type}::uuid` : sql`lower(name) = lower(${input.type})`}`,
      );
      if (!type) {
        const message = `There is no reference type “${input.type}”`;
        throw new Invalid(message, [{ path: "type", message }]);
      }
      if (!type.active) {
        const message = `${type.name} is no longer offered; choose another type`;
        throw new Invalid(message, [{ path: "type", message }]);
      }
      const [row] = await tx.execute<{ id: string; added_at: string; name: string }>(sql`with added as (
          insert into record_references (record_kind, record_id, type_id, ref, added_by)
          values (${ref.kind}, ${ref.id}, ${type.id}, ${input.ref}, ${actor._id})
          on conflict do nothing returning id, added_at, added_by)
        select a.id, a.added_at, u.name from added a join users u on u.id = a.added_by`);
      if (!row) throw duplicate(described.label, type.name, input.ref);
      const text = referenceText({ typeName: type.name, ref: input.ref });
      await auditRecord(tx, ref, status, actor, "Added an external reference", text, null);
      return {
        id: row.id,
        record: recordRefText(ref),
        typeId: type.id,
        typeName: type.name,
        ref: input.ref,
        url: referenceUrl(type.url_template, input.ref),
        addedBy: { _id: actor._id, name: row.name },
        addedAt: new Date(row.added_at).toISOString(),
      };
    });
  } catch (error) {
    if (databaseErrorCode(error) === "23505") throw duplicate(described.label, "", input.ref);
    throw error;
  }
}

const duplicate = (label: string, typeName: string, ref: string) => {
  const message = `${label} already carries ${typeName ? `${typeName} ` : ""}${ref}`;
  return new Conflict(message, [{ path: "ref", message }]);
};

/**
 * DELETE /api/references?id=: removes a live reference (softly: its row stays, marked removed). 404
 * for an unknown or already removed one, 403 for who may not change the record's references.
 * Returns the removed reference.
 */
export async function removeReference(actor: Actor, id: unknown): Promise<RecordReference> {
  if (typeof id !== "string" || !UUID_PATTERN.test(id)) {
    const message = "Name the reference to remove: ?id=<the reference's id>";
    throw new Invalid(message, [{ path: "id", message }]);
  }
  const db = getDb();
  const [found] = await db.execute<{ record_kind: RecordRefKind; record_id: string }>(
    sql`select record_kind, record_id from record_references where id = ${id} and removed_at is null`,
  );
  if (!found) throw new NotFound("There is no such reference (it may have been removed already)");
  const { ref, described } = await readableRecord(db, actor, `${found.record_kind}:${found.record_id}`);
  return db.transaction(async (tx) => {
    const { record, status } = await referencedRecord(tx, ref);
    if (!canManageReferences(actor, record)) {
      throw new Forbidden(`You may read ${described.label} but not change its references`);
    }
    const [row] =
      await tx.execute<ReferenceRow>(sql`update record_references r set removed_at = now(), removed_by = ${actor._id}
      from reference_types t where r.id = ${id} and r.removed_at is null and t.id = r.type_id
      returning r.id, r.record_kind, r.record_id, r.type_id, t.name as type_name, t.url_template, r.ref, r.added_by,
        null::text as added_by_name, r.added_at`);
    if (!row) throw new NotFound("There is no such reference (it may have been removed already)");
    await auditRecord(
      tx,
      ref,
      status,
      actor,
      "Removed an external reference",
      null,
      referenceText({ typeName: row.type_name, ref: row.ref }),
    );
    return toReference(row);
  });
}
