/**
 * Loaders and actions of the archive pages, shared by both kinds: /archive/mocs/... and
 * /archive/pcrs/... (the `$kind` segment). Readers see the lists and records; a reader opening a
 * write page gets the 403 page. Every action calls the same model function as /api. Beside the
 * routes that use it (`.server` files in a `+` folder are not routes).
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { Params } from "@remix-run/react";
import { z } from "zod";
import {
  decodeCsvFile,
  importArchiveCsv,
  checkArchiveImport,
  type ImportCheck,
} from "~/models/archive/archive-import.server";
import {
  archiveFilterSchema,
  archivePageSchemas,
  CSV_LIMITS,
  kindBySegment,
  type ArchiveKindInfo,
} from "~/models/archive/archive.schema";
import {
  archiveFacets,
  createArchiveRecord,
  deleteArchiveRecord,
  getArchiveRecord,
  replaceArchiveRecord,
  searchArchive,
  type ArchiveDocument,
} from "~/models/archive/archive.server";
import { canWriteArchive } from "~/models/authz/authz.server";
import { capitalise } from "~/models/shared/labels";
import type { PublicUser } from "~/models/people/user.server";
import { requirePageUser } from "~/web/auth.server";
import { isReferencesPost, referencesPageAction, referencesPanel } from "~/web/references-page.server";
import { linksPanel } from "~/web/record-links-page.server";
import { DomainError, Forbidden, NotFound } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, readPageQuery, runForPage } from "~/utils/page.server";

export const PAGE_SIZE = 25;

function kindOf(params: Params): ArchiveKindInfo {
  const info = kindBySegment(params.kind);
  if (!info) pageError(new NotFound("There is no such archive: see /archive/mocs or /archive/pcrs."));
  return info;
}

async function reader(request: Request, params: Params) {
  const user = await requirePageUser(request);
  return { user, info: kindOf(params) };
}

async function writer(request: Request, params: Params): Promise<{ user: PublicUser; info: ArchiveKindInfo }> {
  const { user, info } = await reader(request, params);
  if (!canWriteArchive(user)) {
    pageError(new Forbidden(`Only admins and the HSEQ department can change ${info.plural}.`));
  }
  return { user, info };
}

async function record(user: PublicUser, info: ArchiveKindInfo, id: string | undefined): Promise<ArchiveDocument> {
  const parsed = z.uuid().safeParse(id);
  const result = await runForPage(() =>
    parsed.success
      ? getArchiveRecord(user, info.kind, parsed.data)
      : Promise.reject(new NotFound(`No ${info.label} at this address`)),
  );
  if (!result.ok) pageError(result.error);
  return result.value;
}

const listUrl = (info: ArchiveKindInfo) => `/archive/${info.segment}`;
const recordUrl = (info: ArchiveKindInfo, id: string) => `/archive/${info.segment}/${id}`;

// ---------------------------------------------------------------------------------------------
// The list

export async function archiveListLoader({ request, params }: LoaderFunctionArgs) {
  const { user, info } = await reader(request, params);
  const filter = readPageQuery(request, archiveFilterSchema);
  const [{ rows, total }, facets] = await Promise.all([
    searchArchive(user, info.kind, { ...filter, pageSize: PAGE_SIZE }),
    archiveFacets(info.kind),
  ]);
  return {
    kind: info.kind,
    filter,
    rows,
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    facets,
    canWrite: canWriteArchive(user),
  };
}

// ---------------------------------------------------------------------------------------------
// One record: view, new, edit, delete

export async function archiveRecordLoader({ request, params }: LoaderFunctionArgs) {
  const { user, info } = await reader(request, params);
  const doc = await record(user, info, params.id);
  // External references (issue 42): shown to every reader, changed by the archive's writers.
  const references = await referencesPanel(user, { kind: archiveRecordKind(info.kind), id: doc._id });
  // Linked records (issue 42): those whose other end the reader may read too.
  const links = await linksPanel(user, { kind: archiveRecordKind(info.kind), id: doc._id });
  return { kind: info.kind, doc, canWrite: canWriteArchive(user), references, links };
}

/** The record kind ("<kind>:<id>", the audit chain's) of an archive list's records. */
const archiveRecordKind = (kind: ArchiveKindInfo["kind"]) => (kind === "moc" ? "archive-moc" : "archive-pcr");

/** The record page's forms: its references' (issue 42). */
export async function archiveRecordAction({ request, params }: ActionFunctionArgs) {
  const { user, info } = await reader(request, params);
  const doc = await record(user, info, params.id);
  const here = recordUrl(info, doc._id);
  const form = await request.formData();
  if (isReferencesPost(form)) {
    return referencesPageAction(form, user, { kind: archiveRecordKind(info.kind), id: doc._id }, here);
  }
  return redirectWithFlash(here, { kind: "error", message: "That action was not understood." });
}

type ArchiveFormData = { kind: ArchiveKindInfo["kind"]; doc: ArchiveDocument | null; departments: string[] };

export async function archiveNewLoader({ request, params }: LoaderFunctionArgs): Promise<ArchiveFormData> {
  const { info } = await writer(request, params);
  return { kind: info.kind, doc: null, departments: (await archiveFacets(info.kind)).departments };
}

export async function archiveEditLoader({ request, params }: LoaderFunctionArgs): Promise<ArchiveFormData> {
  const { user, info } = await writer(request, params);
  return {
    kind: info.kind,
    doc: await record(user, info, params.id),
    departments: (await archiveFacets(info.kind)).departments,
  };
}

/** The new and edit forms' action: a duplicate serial number shows next to its field. */
async function saveRecord(request: Request, params: Params, existing: boolean) {
  const { user, info } = await writer(request, params);
  const current = existing ? await record(user, info, params.id) : null;
  const submission = parseWithZod(await request.formData(), { schema: archivePageSchemas[info.kind] });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  const result = await runForPage(() =>
    current
      ? replaceArchiveRecord(user, info.kind, { ...value, _id: current._id })
      : createArchiveRecord(user, info.kind, value),
  );
  if (!result.ok) {
    if (result.error.status === 409) {
      return data(submission.reply({ fieldErrors: { serial_num: [result.error.message] } }), { status: 409 });
    }
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(recordUrl(info, result.value._id), {
    kind: "success",
    message: `${capitalise(info.label)} ${result.value.serial_num} is saved.`,
  });
}

export const archiveNewAction = ({ request, params }: ActionFunctionArgs) => saveRecord(request, params, false);
export const archiveEditAction = ({ request, params }: ActionFunctionArgs) => saveRecord(request, params, true);

export async function archiveDeleteLoader({ request, params }: LoaderFunctionArgs) {
  const { user, info } = await writer(request, params);
  return { kind: info.kind, doc: await record(user, info, params.id) };
}

export async function archiveDeleteAction({ request, params }: ActionFunctionArgs) {
  const { user, info } = await writer(request, params);
  const doc = await record(user, info, params.id);
  const result = await runForPage(() => deleteArchiveRecord(user, info.kind, doc._id));
  if (!result.ok) pageError(result.error);
  return redirectWithFlash(listUrl(info), {
    kind: "success",
    message: `${capitalise(info.label)} ${doc.serial_num} was deleted.`,
  });
}

// ---------------------------------------------------------------------------------------------
// CSV import

export async function archiveImportLoader({ request, params }: LoaderFunctionArgs) {
  const { info } = await writer(request, params);
  return { kind: info.kind };
}

/** Rejected rows shown at most; the count says how many there are in all. */
const SHOWN_REJECTED = 200;
const SHOWN_VALID = 20;

export type ImportReport = {
  fileName: string;
  fileErrors: string[];
  rowCount: number;
  rejectedCount: number;
  rejected: ImportCheck["rejected"];
  validCount: number;
  preview: ImportCheck["valid"];
  /** The checked file (base64), carried to the confirmation only when every row is valid. */
  csv: string | null;
};

function report(fileName: string, check: ImportCheck, text: string): ImportReport {
  const clean = !check.fileErrors.length && !check.rejected.length && check.valid.length > 0;
  return {
    fileName,
    fileErrors: check.fileErrors,
    rowCount: check.rowCount,
    rejectedCount: check.rejected.length,
    rejected: check.rejected.slice(0, SHOWN_REJECTED),
    validCount: check.valid.length,
    preview: check.valid.slice(0, SHOWN_VALID),
    csv: clean ? Buffer.from(text, "utf8").toString("base64") : null,
  };
}

const fileError = (fileName: string, message: string, status = 400) => {
  const shown: ImportReport = {
    fileName,
    fileErrors: [message],
    rowCount: 0,
    rejectedCount: 0,
    rejected: [],
    validCount: 0,
    preview: [],
    csv: null,
  };
  return data({ report: shown }, { status });
};

const safeName = (name: unknown) =>
  typeof name === "string" && name.trim() ? name.replace(/[^\w .()-]/g, "_").slice(0, 120) : "the file";

/**
 * Two steps, both multipart posts: `check` reads the uploaded file and reports on every row,
 * saving nothing; `import` carries the checked text back, checks it again and saves it all, or
 * shows the report again.
 */
export async function archiveImportAction({ request, params }: ActionFunctionArgs) {
  const { user, info } = await writer(request, params);
  const declared = Number(request.headers.get("Content-Length"));
  // The confirmation carries the file as base64 (4/3 of its size) plus the form's own fields.
  if (Number.isFinite(declared) && declared > CSV_LIMITS.bytes * 1.5 + 64 * 1024) {
    return fileError("the file", "The file is larger than 1 MiB: split it into smaller files", 413);
  }
  const form = await request.formData().catch(() => null);
  if (!form) return fileError("the file", "The upload could not be read; choose the file again");
  const intent = form.get("intent");
  let fileName = safeName(form.get("fileName"));
  let text: string;
  try {
    if (intent === "import") {
      const carried = form.get("csv");
      if (typeof carried !== "string" || !carried) return fileError(fileName, "Choose the file to import again");
      text = decodeCsvFile(Buffer.from(carried, "base64"));
    } else {
      const file = form.get("file");
      if (!(file instanceof File) || file.size === 0) return fileError("the file", "Choose a CSV file to check");
      fileName = safeName(file.name);
      if (file.size > CSV_LIMITS.bytes)
        return fileError(fileName, "The file is larger than 1 MiB: split it into smaller files");
      text = decodeCsvFile(new Uint8Array(await file.arrayBuffer()));
    }
  } catch (error) {
    if (error instanceof DomainError) return fileError(fileName, error.message);
    throw error;
  }

  if (intent !== "import") {
    const check = await checkArchiveImport(user, info.kind, text);
    const shown = report(fileName, check, text);
    return data({ report: shown }, { status: shown.csv ? 200 : 400 });
  }
  const result = await runForPage(() => importArchiveCsv(user, info.kind, text));
  if (!result.ok) return fileError(fileName, result.error.message, result.error.status);
  if (!result.value.saved) return data({ report: report(fileName, result.value.check, text) }, { status: 400 });
  const count = result.value.count;
  return redirectWithFlash(listUrl(info), {
    kind: "success",
    message: `Imported ${count} ${count === 1 ? info.label : info.plural} from ${fileName}.`,
  });
}
