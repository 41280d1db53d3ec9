/**
 * Attachments (the MOC risk assessment): stored under DATA_DIR/uploads/<moc id>/, served back only
 * to people who may see the MOC, always as a download.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { env } from "~/utils/env.server";
import { Invalid, NotFound } from "~/utils/errors";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Extension -> content type: the only files we accept and serve. */
export const UPLOAD_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  txt: "text/plain",
};

const root = () => path.resolve(env().DATA_DIR, "uploads");

const extensionOf = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";

/** Stores the file and returns its URL (`/uploads/<mocId>/<stored name>`). */
export async function storeMocAttachment(mocId: string, file: File): Promise<string> {
  const extension = extensionOf(file.name);
  if (!UPLOAD_TYPES[extension]) {
    throw new Invalid("This type of file is not accepted", [
      { path: "file", message: `Upload a ${Object.keys(UPLOAD_TYPES).join(", ")} file` },
    ]);
  }
  if (file.size === 0)
    throw new Invalid("The file is empty", [{ path: "file", message: "Choose a file that is not empty" }]);
  if (file.size > MAX_UPLOAD_BYTES) {
    throw new Invalid("The file is too large", [{ path: "file", message: "Files can be at most 10 MB" }]);
  }
  const base = file.name
    .replace(/\.[^.]*$/, "")
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  const stored = `${randomBytes(8).toString("hex")}-${base || "attachment"}.${extension}`;
  const folder = path.join(root(), mocId);
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, stored), Buffer.from(await file.arrayBuffer()));
  return `/uploads/${mocId}/${stored}`;
}

/** The stored file for a URL's parts, or 404. Names are checked, so no path escapes the folder. */
export async function readMocAttachment(
  mocId: string,
  name: string,
): Promise<{ body: Buffer; type: string; name: string }> {
  if (!/^[0-9a-f-]{36}$/.test(mocId) || !/^[0-9a-f]{16}-[A-Za-z0-9_-]*\.[a-z0-9]+$/.test(name))
    throw new NotFound("No such file");
  const type = UPLOAD_TYPES[extensionOf(name)];
  if (!type) throw new NotFound("No such file");
  try {
    return { body: await fs.readFile(path.join(root(), mocId, name)), type, name };
  } catch {
    throw new NotFound("No such file");
  }
}
