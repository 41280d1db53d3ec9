/**
 * The app's settings as a record kind (docs/decisions/060-record-kinds.md): one trail in
 * `audit_entries` per list admins keep (the risk matrix, the ranks, the reference types), no table.
 */
import { sharedTrail } from "../audit/audit.server";
import { RANKS_RECORD } from "../people/ranks.constants";
import { defineRecordKind } from "../record-kind/record-kind";
import { REFERENCE_TYPES_RECORD } from "../records/references.constants";

export const SETTINGS_KIND = defineRecordKind({
  name: "settings",
  label: "Settings",
  page: (id) =>
    id === RANKS_RECORD ? "/admin/ranks" : id === REFERENCE_TYPES_RECORD ? "/admin/references" : "/admin/risk",
  audit: sharedTrail("settings"),
});
