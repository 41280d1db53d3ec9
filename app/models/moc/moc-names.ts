/** Names of the people a MOC names by id: no I/O, for the pages' components and the print model. */
import type { MocDocument, UserJson } from "./moc-document";
import { SCOPE_LABELS, SCOPES, type Scope } from "../fleet/vessel.constants";

/** Everyone the record names by id, by name: its people, the plans' owners, whoever decided. */
export function namesOf(
  doc: Pick<
    MocDocument,
    | "plan_owners"
    | "all_users"
    | "logs"
    | "originator_id"
    | "implementer_id"
    | "approver_id"
    | "hseq_id"
    | "verifier_id"
  >,
): (id: string | null | undefined) => string {
  const names = new Map<string, string>();
  for (const u of [
    ...(doc.plan_owners ?? []),
    ...doc.all_users,
    ...[doc.originator_id, doc.implementer_id, doc.approver_id, doc.hseq_id, doc.verifier_id].filter(
      (u): u is UserJson => Boolean(u),
    ),
    ...doc.logs.flatMap((l) => [l.userId, l.onBehalfOf].filter((u): u is UserJson => Boolean(u))),
  ]) {
    names.set(u._id, u.name);
  }
  return (id) => (id ? (names.get(id) ?? "—") : "—");
}

/**
 * How a MOC is named wherever it is named (docs/decisions/036-vessels-and-crew-access.md): "MOC 14-2026 — Bypass of
 * ME2 HT alarm", or "MOC 14-2026" for one recorded without a title.
 */
export const mocName = (serial: string, title?: string | null) =>
  title ? `MOC ${serial} — ${title}` : `MOC ${serial}`;

/**
 * How an email names a MOC (its subject's lead and its heading): the name, and where the change
 * applies when recorded: "MOC 14-2026 — Bypass of ME2 HT alarm · MV Borealis" (decision 036).
 */
export const mocEmailName = (serial: string, title?: string | null, vessel?: string | null) =>
  vessel ? `${mocName(serial, title)} · ${vessel}` : mocName(serial, title);

/** Part A's title, if recorded. */
export const titleOf = (form: { title?: { value?: unknown } | null } | null | undefined): string | null =>
  typeof form?.title?.value === "string" && form.title.value ? form.title.value : null;

/** The label of "not recorded" (a MOC raised before Part A asked its title and scope). */
export const NOT_RECORDED = "Not recorded";

/** How a MOC's scope reads: the vessel's name, "Office / shore", "Fleet-wide", or "Not recorded". */
export function scopeLabel(value: unknown): string {
  if (typeof value === "string" && (SCOPES as readonly string[]).includes(value)) return SCOPE_LABELS[value as Scope];
  if (value && typeof value === "object" && typeof (value as { name?: unknown }).name === "string") {
    return (value as { name: string }).name;
  }
  return NOT_RECORDED;
}

/** Part A's scope of a document, as it reads. */
export const scopeOf = (form: { vessel?: { value?: unknown } | null } | null | undefined) =>
  scopeLabel(form?.vessel?.value);
