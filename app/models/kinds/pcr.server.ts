/**
 * The PCR as a record kind (docs/decisions/060-record-kinds.md): its entry in the registry
 * (app/models/record-kind/record-kind.ts), pointing at the PCR's own modules.
 */
import { sql } from "drizzle-orm";
import { PCR_SEARCH } from "#db/search-document";
import { sharedTrail } from "../audit/audit.server";
import { pcrListScope } from "../authz/authz.server";
import { PCR_WORKFLOW } from "../pcr/pcr-chain.server";
import { mayChangePcrFiles, mayReadPcrFiles } from "../pcr/pcr-files.server";
import { describePcrs, loadPcrRecord, PCR_STATES, pcrRoom, type PcrRecordAccess } from "../pcr/pcr-record.server";
import { waitingPcrSignatures } from "../pcr/pcr-waiting.server";
import { defineRecordKind } from "../record-kind/record-kind";
import { pcrListCsv } from "../pcr/pcr-list.server";
import { recordPdf } from "../records-out/record-pdf.server";
import { pcrPrintRecord } from "../pcr/pcr-print.server";

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
  attachments: {
    column: "pcr_id",
    fileKinds: ["file"],
    mayChange: mayChangePcrFiles,
    mayRead: mayReadPcrFiles,
    changed: null,
  },
  chat: { column: "chat_id", room: pcrRoom },
  notices: {
    labelSql: (id) => sql`(select 'PCR ' || r.serial_num from pcrs r where r.id = ${id})`,
    titleSql: (id) => sql`(select nullif(r.form->>'title', '') from pcrs r where r.id = ${id})`,
  },
  search: {
    entry: PCR_SEARCH,
    group: "pcrs",
    serialPrefix: "pcr",
    status: sql`p.status`,
    completed: sql`false`,
    newest: sql`p.created_at`,
  },
  waiting: waitingPcrSignatures,
  print: { view: pcrPrintRecord, pdf: recordPdf },
  export: pcrListCsv,
  api: ["/api/pcr", "/api/getAllPcr", "/api/singlePcr"],
  workflow: PCR_WORKFLOW,
  linkable: { describe: describePcrs },
});
