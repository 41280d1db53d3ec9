/**
 * The MOC as a record kind (docs/decisions/060-record-kinds.md): its entry in the registry
 * (app/models/record-kind/record-kind.ts), pointing at the MOC's own modules.
 */
import { sql } from "drizzle-orm";
import { MOC_SEARCH } from "#db/search-document";
import {
  isMocApproved,
  isMocCompleted,
  isMocOpen,
  mocApprovedSql,
  mocCompletedSql,
  mocListScope,
  mocOpenSql,
} from "../authz/authz.server";
import { computeInsights } from "../insights/insights.server";
import { mayChangeMocFiles, mayReadMocFiles, mocFileChanged } from "../moc/moc-files.server";
import {
  describeMocs,
  loadMocRecord,
  mocRoom,
  mocStateProblems,
  noteOnMoc,
  type MocRecordAccess,
} from "../moc/moc-record.server";
import { TITLE_SQL } from "../moc/moc-scope.server";
import { MOC_WORKFLOW } from "../moc/moc-steps.server";
import { waitingMocSteps } from "../moc/moc-waiting.server";
import { remindMocs } from "../moc/reminder.server";
import { defineRecordKind } from "../record-kind/record-kind";
import { mocListCsv } from "../moc/moc-list.server";
import { recordPdf } from "../records-out/record-pdf.server";
import { mocPrintRecord } from "../moc/moc-print.server";

export const MOC_KIND = defineRecordKind<MocRecordAccess>({
  name: "moc",
  label: "MOC",
  page: (id) => `/mocs/${id}`,
  table: { name: "mocs", alias: "m" },
  readSql: (actor) => mocListScope.visible(actor),
  load: loadMocRecord,
  states: {
    open: { meaning: "not completed and not declined", is: (r) => isMocOpen(r.access.moc), sql: () => mocOpenSql() },
    completed: {
      meaning: "verified and closed",
      is: (r) => isMocCompleted(r.access.moc),
      sql: () => mocCompletedSql(),
    },
    approved: {
      meaning: "approved (Part D) and not declined",
      is: (r) => isMocApproved(r.access.moc),
      sql: () => mocApprovedSql(),
    },
  },
  audit: {
    chain: "moc",
    log: { table: "moc_logs", recordColumn: "moc_id" },
    note: noteOnMoc,
    stateProblems: mocStateProblems,
  },
  signatures: "moc",
  attachments: {
    column: "moc_id",
    fileKinds: ["file", "risk_assessment"],
    mayChange: mayChangeMocFiles,
    mayRead: mayReadMocFiles,
    changed: mocFileChanged,
  },
  chat: { column: "chat_id", room: mocRoom },
  notices: {
    labelSql: (id) => sql`(select 'MOC ' || m.serial_num from mocs m where m.id = ${id} and not m.is_deleted)`,
    titleSql: (id) => sql`(select ${TITLE_SQL} from moc_forms f where f.moc_id = ${id} and f.kind = 'originator')`,
  },
  search: {
    entry: MOC_SEARCH,
    group: "mocs",
    serialPrefix: "moc",
    status: sql`m.status`,
    completed: sql`m.completed`,
    newest: sql`m.created_at`,
  },
  waiting: waitingMocSteps,
  reminders: remindMocs,
  print: { view: mocPrintRecord, pdf: recordPdf },
  export: mocListCsv,
  insights: computeInsights,
  api: ["/api/getAllMoc", "/api/singlemoc", "/api/newmoc"],
  workflow: MOC_WORKFLOW,
  linkable: { describe: describeMocs },
});
