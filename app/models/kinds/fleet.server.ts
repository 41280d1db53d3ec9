/**
 * The vessel register's vessels as a record kind (docs/decisions/060-record-kinds.md,
 * docs/decisions/036-vessels-and-crew-access.md): a trail of their own in `audit_entries`.
 */
import { sharedTrail } from "../audit/audit.server";
import { defineRecordKind } from "../record-kind/record-kind";

export const VESSEL_KIND = defineRecordKind({
  name: "vessel",
  label: "Vessel",
  page: (id) => `/vessels/${id}`,
  table: { name: "vessels", alias: "v" },
  audit: sharedTrail("vessel"),
  api: ["/api/vessels"],
});
