/**
 * Accounts and delegations as record kinds (docs/decisions/060-record-kinds.md): each keeps a
 * trail of its own in `audit_entries` and is otherwise known to no cross-cutting module.
 */
import { sharedTrail } from "../audit/audit.server";
import { defineRecordKind } from "../record-kind/record-kind";
import { usersCsv } from "../records-out/csv-export.server";

export const USER_KIND = defineRecordKind({
  name: "user",
  label: "User",
  page: (id) => `/admin/users/${id}`,
  table: { name: "users", alias: "u" },
  audit: sharedTrail("user"),
  export: usersCsv,
  api: ["/api/users"],
});

export const DELEGATION_KIND = defineRecordKind({
  name: "delegation",
  label: "Delegation",
  page: () => "/admin/delegations",
  table: { name: "delegations", alias: "dl" },
  audit: sharedTrail("delegation"),
});
