/**
 * The PCR as a record kind (docs/decisions/060-record-kinds.md): its entry in the registry
 * (app/models/record-kind/record-kind.ts), pointing at the PCR's own modules.
 */
import { sql } from "drizzle-orm";
import { PCR_SEARCH } from "#db/search-document";
import { sharedTrail } from "../audit/audit.server";
import { pcrListScope } from "../authz/authz.server";
import { PCR_WORKFLOW } from "../pcr/pcr-chain.server";
import { describePcrs, loadPcrRecord, PCR_STATES, type PcrRecordAccess } from "../pcr/pcr-record.server";
import { defineRecordKind } from "../record-kind/record-kind";
import { roomOfPcr } from "../records/chat.server";
import { pcrListCsv } from "../records-out/csv-export.server";
import { recordPdf } from "../records-out/record-pdf.server";
import { pcrPrintRecord } from "../records-out/record-print.server";

export const PCR_KIND = defineRecordKind<PcrRecordAccess>({
  name: "pcr",
  label: "PCR",
  page: (id) => `/pcrs/${id}`,
  table: { name: "pcrs", alias: "p" },
  readSql: pcrListScope,
  load: loadPcrRecord,
  states: PCR_STATES,
  audit: sharedTrail("pcr"),
  signatures: "pcr",
  attachments: { column: "pcr_id" },
  chat: { column: "chat_id", room: roomOfPcr },
  notices: { labelSql: (id) => sql`(select 'PCR ' || r.serial_num from pcrs r where r.id = ${id})` },
  search: {
    entry: PCR_SEARCH,
    group: "pcrs",
    serialPrefix: "pcr",
    status: sql`p.status`,
    completed: sql`false`,
    newest: sql`p.created_at`,
  },
  print: { view: pcrPrintRecord, pdf: recordPdf },
  export: pcrListCsv,
  api: ["/api/pcr", "/api/getAllPcr", "/api/singlePcr"],
  workflow: PCR_WORKFLOW,
  linkable: { describe: describePcrs },
});
