/**
 * A MOC as its people read it, through the real route modules: the print view's record, the PDF's
 * text (pdftotext, whitespace folded) and the record page's loader data. Tests that check a record
 * reads the same everywhere use these.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import * as mocPdf from "~/routes/mocs+/$id_.pdf";
import * as mocPrint from "~/routes/mocs+/$id_.print";
import * as mocPage from "~/routes/mocs+/$id";
import type { PrintRecord } from "~/models/records-out/record-print.server";
import { tokenFor } from "./factories";
import { buildRequest } from "./request";

/** Text with every run of whitespace made one space (as pdftotext breaks lines). */
export const folded = (text: string) => text.replace(/\s+/g, " ");

/** A GET of `url` by `user`, signed in with the session cookie. */
export async function requestAs(user: { _id: string }, url: string) {
  return buildRequest({ path: url, token: await tokenFor(user as never), cookie: true });
}

type Loader = { loader: (args: never) => unknown };
const load = async (route: Loader, url: string, id: string, user: { _id: string }) =>
  route.loader({ request: await requestAs(user, url), params: { id }, context: {} } as never);

/** The print view's record of the MOC, as `user` reads it. */
export async function printOf(id: string, user: { _id: string }): Promise<PrintRecord> {
  return ((await load(mocPrint, `/mocs/${id}/print`, id, user)) as { record: PrintRecord }).record;
}

/** The text of the MOC's PDF, as `user` downloads it. */
export async function pdfTextOf(id: string, user: { _id: string }): Promise<string> {
  const response = (await load(mocPdf, `/mocs/${id}/pdf`, id, user)) as Response;
  expect(response.status).toBe(200);
  const file = path.join(mkdtempSync(path.join(tmpdir(), "record-pdf-")), "record.pdf");
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return folded(execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }));
}

/** The record page's loader data, as folded JSON text, as `user` opens it. */
export async function pageTextOf(id: string, user: { _id: string }): Promise<string> {
  return folded(JSON.stringify(await load(mocPage, `/mocs/${id}`, id, user)));
}
