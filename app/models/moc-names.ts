/** Names of the people a MOC names by id: no I/O, for the pages' components and the print model. */
import type { MocDocument, UserJson } from "./moc-document";

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
