/**
 * Resumable attachment uploads over the tus protocol (app/web/resumable-upload.server.ts,
 * docs/decisions/040-replays-apply-once.md): an upload cut at half resumes from the last byte the
 * server holds and becomes an attachment whose SHA-256 is the file's; the 10 MB cap is refused
 * before a byte is sent; a type that is not accepted, or bytes that are not what the name says,
 * are refused; an upload is its creator's; one not finished within its lifetime from creation is
 * refused and removed; unfinished uploads are capped per person and in all (429), and left out of
 * backups; the file name's rules apply at creation; no CORS header; a signed PCR takes no file.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNED_PCR_FILES_FROZEN } from "~/models/pcr/pcr-files.server";
import { auditKeys, signingKey } from "~/models/audit/audit-chain.server";
import { PART_BYTES } from "~/models/records/resumable-uploads.server";
import * as tusRoute from "~/routes/tus.attachments.$";
import { closeDb, getDb } from "~/utils/db.server";
import { env, loadEnv, resetEnv } from "~/utils/env.server";
import { attachments, resumableUploadParts, resumableUploads } from "#db/schema";
import { verifyBackupFile, writeBackup } from "#db/backup";
import { runHousekeeping } from "#jobs/housekeeping";
import { eventually } from "../helpers/fake-resend";
import { BASE } from "../helpers/request";
import { createMocOk, makeCast, tokenOf, type Doc } from "../helpers/moc-flow";
import { makeUser } from "../helpers/factories";
import { createPcrOk, signOk } from "../helpers/pcr";
import type { Cast } from "../helpers/moc";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** A PDF by its first bytes, `size` long. */
function pdfOf(size: number): Buffer {
  const bytes = randomBytes(size);
  Buffer.from("%PDF-1.7\n").copy(bytes);
  return bytes;
}

async function tus(
  who: { _id: string },
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Uint8Array | ReadableStream<Uint8Array>,
): Promise<Response> {
  const request = new Request(new URL(path, BASE), {
    method,
    headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${await tokenOf(who)}`, ...headers },
    ...(body ? { body: body as BodyInit, duplex: "half" } : {}),
  } as RequestInit);
  const args = { request, params: { "*": path.split("/").slice(3).join("/") }, context: {} };
  return method === "HEAD" || method === "GET" ? tusRoute.loader(args) : tusRoute.action(args);
}

async function create(who: { _id: string }, moc: Doc, size: number, filename = "Drawing.pdf"): Promise<Response> {
  return tus(who, "POST", "/tus/attachments", {
    "Upload-Length": String(size),
    "Upload-Metadata": `filename ${b64(filename)},record ${b64(`moc:${moc._id}`)},kind ${b64("file")}`,
  });
}

/** A body that sends `bytes` in pieces, then the link drops. */
function cutAfter(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes.byteLength) {
        controller.error(new Error("the link dropped"));
        return;
      }
      const piece = bytes.subarray(sent, sent + 64 * 1024);
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}

let cast: Cast;
let moc: Doc;
beforeAll(async () => {
  cast = await makeCast();
  moc = await createMocOk(cast);
});
afterAll(async () => {
  await closeDb();
});

describe("tus uploads of attachments", () => {
  it("an upload cut at half resumes from the last byte held, and the file's SHA-256 is right", async () => {
    const file = pdfOf(1536 * 1024 + 123);
    const created = await create(cast.originator, moc, file.byteLength);
    expect(created.status, await created.clone().text()).toBe(201);
    const location = created.headers.get("Location")!;
    expect(location).toMatch(/^\/tus\/attachments\/[\w-]+$/);

    // The first half goes, then the link drops.
    const half = file.subarray(0, file.byteLength / 2);
    const cut = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      cutAfter(half),
    ).catch((error: unknown) => error);
    expect(cut instanceof Response ? cut.status : 0).not.toBe(204);

    const head = await tus(cast.originator, "HEAD", location, {});
    expect(head.status).toBe(200);
    const held = Number(head.headers.get("Upload-Offset"));
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(half.byteLength);
    expect(head.headers.get("Upload-Length")).toBe(String(file.byteLength));

    // Resumed from there: the rest, in one piece.
    const rest = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": String(held), "Content-Type": "application/offset+octet-stream" },
      file.subarray(held),
    );
    expect(rest.status, await rest.clone().text()).toBe(204);
    expect(rest.headers.get("Upload-Offset")).toBe(String(file.byteLength));
    expect(rest.headers.get("Attachment-Sha256")).toBe(sha(file));
    const id = rest.headers.get("Attachment-Url")!.split("/").pop()!;
    const [row] = await getDb().select().from(attachments).where(eq(attachments.id, id));
    expect(row).toMatchObject({ mocId: moc._id, name: "Drawing.pdf", size: file.byteLength, sha256: sha(file) });
    const stored = await getDb().execute<{ hash: string }>(
      sql`select encode(sha256(string_agg(data, ''::bytea order by seq)), 'hex') as hash from attachment_chunks where attachment_id = ${id}`,
    );
    expect(stored[0]!.hash).toBe(sha(file));
    // The upload is gone once it is an attachment.
    const uploadId = location.split("/").pop()!;
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, uploadId))).toEqual([]);
    expect(
      await getDb().select().from(resumableUploadParts).where(eq(resumableUploadParts.uploadId, uploadId)),
    ).toEqual([]);
  });

  it("a piece sent from the wrong offset is 409 and changes nothing", async () => {
    const file = pdfOf(4096);
    const location = (await create(cast.originator, moc, file.byteLength)).headers.get("Location")!;
    const wrong = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "100", "Content-Type": "application/offset+octet-stream" },
      file.subarray(100),
    );
    expect(wrong.status).toBe(409);
    expect((await tus(cast.originator, "HEAD", location, {})).headers.get("Upload-Offset")).toBe("0");
  });

  it("over 10 MB is refused before a byte is sent; a type not accepted is 400", async () => {
    const big = await create(cast.originator, moc, 10 * 1024 * 1024 + 1);
    expect(big.status).toBe(413);
    const exe = await create(cast.originator, moc, 100, "tool.exe");
    expect(exe.status).toBe(400);
    expect(await exe.text()).toMatch(/not accepted/);
    const noRecord = await tus(cast.originator, "POST", "/tus/attachments", {
      "Upload-Length": "100",
      "Upload-Metadata": `filename ${b64("a.pdf")}`,
    });
    expect(noRecord.status).toBe(400);
  });

  it("bytes that are not what the name says are refused at the end, and nothing is kept", async () => {
    const fake = Buffer.from("this is not a PDF at all, just text");
    const location = (await create(cast.originator, moc, fake.byteLength, "Fake.pdf")).headers.get("Location")!;
    const sent = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      fake,
    );
    expect(sent.status).toBe(400);
    expect(await sent.text()).toBe("This is not a valid .pdf file");
    const id = location.split("/").pop()!;
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id))).toEqual([]);
    expect(await getDb().select().from(attachments).where(eq(attachments.name, "Fake.pdf"))).toEqual([]);
  });

  it("someone who may not attach to the record is refused before a byte is sent", async () => {
    const outsider = await makeUser({ name: "Outsider" });
    const refused = await create(outsider, moc, 1000);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/people involved/);
    const missing = await tus(cast.originator, "POST", "/tus/attachments", {
      "Upload-Length": "1000",
      "Upload-Metadata": `filename ${b64("a.pdf")},record ${b64("moc:00000000-0000-4000-8000-000000000000")}`,
    });
    expect(missing.status).toBe(404);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.userId, outsider._id))).toEqual([]);
  });

  it("an upload is its creator's: another person, or nobody signed in, cannot see or add to it", async () => {
    const location = (await create(cast.originator, moc, 1000)).headers.get("Location")!;
    expect((await tus(cast.implementer, "HEAD", location, {})).status).toBe(404);
    const theirs = await tus(
      cast.implementer,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      pdfOf(1000),
    );
    expect(theirs.status).toBe(404);
    const anonymous = await tusRoute.loader({
      request: new Request(new URL(location, BASE), { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } }),
      params: {},
      context: {},
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toBe("Sign in first");
  });

  it("an upload not finished within its lifetime from creation is refused (410) and removed, though bytes keep coming", async () => {
    const file = pdfOf(300 * 1024);
    const location = (await create(cast.originator, moc, file.byteLength * 2)).headers.get("Location")!;
    const id = location.split("/").pop()!;
    const first = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      file,
    );
    expect(first.status).toBe(204);
    const recent = await create(cast.originator, moc, 1000);
    const recentId = recent.headers.get("Location")!.split("/").pop()!;
    // Created 25 hours ago, its last piece a moment ago: a byte now and then does not keep it.
    await getDb()
      .update(resumableUploads)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000), updatedAt: new Date() })
      .where(eq(resumableUploads.id, id));
    expect((await tus(cast.originator, "HEAD", location, {})).status).toBe(410);
    const late = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": String(file.byteLength), "Content-Type": "application/offset+octet-stream" },
      file,
    );
    expect(late.status).toBe(410);
    const outcome = await runHousekeeping();
    expect(outcome.uploads).toBeGreaterThanOrEqual(1);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id))).toEqual([]);
    expect(await getDb().select().from(resumableUploadParts).where(eq(resumableUploadParts.uploadId, id))).toEqual([]);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, recentId))).toHaveLength(1);
    expect((await tus(cast.originator, "HEAD", location, {})).status).toBe(404);
  });

  it("a piece still arriving when the lifetime ends is refused at its next write (410), the bytes after it not kept", async () => {
    const file = pdfOf(PART_BYTES + 64 * 1024);
    const location = (await create(cast.originator, moc, file.byteLength * 2)).headers.get("Location")!;
    const id = location.split("/").pop()!;
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) });
    const sending = tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      body,
    );
    feed.enqueue(file);
    // The first part is stored while the request goes on...
    const held = await eventually(async () => {
      const [row] = await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id));
      expect(row!.offset).toBeGreaterThanOrEqual(PART_BYTES);
      return row!.offset;
    });
    // ...then the lifetime runs out, and the request still sends bytes.
    await getDb()
      .update(resumableUploads)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(resumableUploads.id, id));
    feed.enqueue(pdfOf(1024));
    feed.close();
    expect((await sending).status).toBe(410);
    const [row] = await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id));
    expect(row!.offset).toBe(held);
    await runHousekeeping();
    expect(await getDb().select().from(resumableUploadParts).where(eq(resumableUploadParts.uploadId, id))).toEqual([]);
  });
});

const MiB = 1024 * 1024;

/** Opens an upload of `size` for `who` and sends all of it but the last byte; the creation's answer. */
async function openAllButOne(who: { _id: string }, record: Doc, size: number): Promise<Response> {
  const created = await create(who, record, size);
  if (created.status !== 201) return created;
  const sent = await tus(
    who,
    "PATCH",
    created.headers.get("Location")!,
    { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
    pdfOf(size - 1),
  );
  expect(sent.status, await sent.clone().text()).toBe(204);
  return created;
}

const databaseBytes = async () =>
  Number((await getDb().execute<{ n: string }>(sql`select pg_database_size(current_database())::text as n`))[0]!.n);

async function withEnv<T>(values: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  resetEnv();
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnv();
  }
}

describe("what unfinished uploads may hold", () => {
  it("one person opening uploads until refused: 429 with Retry-After at the caps, and the database grows by no more", async () => {
    const { RESUMABLE_UPLOADS_PER_PERSON: most, RESUMABLE_UPLOADS_MIB_PER_PERSON: mib } = env();
    const crew = await makeCast();
    const record = await createMocOk(crew);
    const person = crew.originator;
    const before = await databaseBytes();

    // Whole files, each one byte short, until refused: the person's bytes are the limit here...
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const answer = await openAllButOne(person, record, 10 * MiB);
      statuses.push(answer.status);
      if (answer.status !== 201) refused = answer;
    }
    expect(statuses).toEqual([...Array(Math.floor(mib / 10)).fill(201), 429]);
    expect(Number(refused!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await refused!.text()).toMatch(new RegExp(`would take them past the ${mib} MB one person may have waiting`));
    // ...and small ones, until the count is.
    refused = undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const answer = await openAllButOne(person, record, MiB);
      if (answer.status !== 201) refused = answer;
    }
    expect(refused!.status).toBe(429);
    expect(Number(refused!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await refused!.text()).toMatch(
      new RegExp(`You have ${most} unfinished uploads, the most one person may have`),
    );

    const [held] = await getDb().execute<{ uploads: number; bytes: string; declared: string }>(
      sql`select count(*)::int as uploads, sum("offset")::text as bytes, sum(size)::text as declared
          from resumable_uploads where user_id = ${person._id}`,
    );
    const after = await databaseBytes();
    console.log(
      `unfinished uploads of one person: ${held!.uploads} holding ${held!.bytes} bytes; database ${before} -> ${after} bytes (+${after - before})`,
    );
    expect(held!.uploads).toBe(most);
    expect(Number(held!.declared)).toBeLessThanOrEqual(mib * MiB);
    // What the database grew by is the bytes held and the rows around them, no more.
    expect(after - before).toBeLessThan(mib * MiB + 8 * MiB);

    // Removing one (tus's termination) makes room again.
    const [one] = await getDb()
      .select({ id: resumableUploads.id })
      .from(resumableUploads)
      .where(eq(resumableUploads.userId, person._id))
      .limit(1);
    expect((await tus(person, "DELETE", `/tus/attachments/${one!.id}`, {})).status).toBe(204);
    expect((await create(person, record, MiB)).status).toBe(201);
  }, 120_000);

  it("uploads opened at once by one person are counted together: only the cap's number get through", async () => {
    const crew = await makeCast();
    const record = await createMocOk(crew);
    const most = env().RESUMABLE_UPLOADS_PER_PERSON;
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(crew.implementer, record, 1000)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(most);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(8 - most);
  });

  it("past the total all unfinished uploads may hold, anyone's new upload is 429", async () => {
    const crew = await makeCast();
    const record = await createMocOk(crew);
    await withEnv({ RESUMABLE_UPLOADS_MIB_TOTAL: "10", RESUMABLE_UPLOADS_MIB_PER_PERSON: "10" }, async () => {
      const [all] = await getDb().execute<{ n: string }>(
        sql`select coalesce(sum(size), 0)::text as n from resumable_uploads`,
      );
      expect(Number(all!.n)).toBeGreaterThan(0);
      const refused = await create(crew.implementer, record, 10 * MiB);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(await refused.text()).toMatch(/The server holds as many unfinished uploads as it may \(10 MB\)/);
    });
  });

  it("the caps are validated at start", () => {
    expect(() => loadEnv({ NODE_ENV: "test", RESUMABLE_UPLOADS_MIB_PER_PERSON: "5" })).toThrow(
      /RESUMABLE_UPLOADS_MIB_PER_PERSON|10/,
    );
    expect(() =>
      loadEnv({ NODE_ENV: "test", RESUMABLE_UPLOADS_MIB_PER_PERSON: "100", RESUMABLE_UPLOADS_MIB_TOTAL: "50" }),
    ).toThrow(/cannot be more than RESUMABLE_UPLOADS_MIB_TOTAL/);
    expect(() => loadEnv({ NODE_ENV: "test", RESUMABLE_UPLOADS_PER_PERSON: "0" })).toThrow();
    expect(() => loadEnv({ NODE_ENV: "test", RESUMABLE_UPLOAD_HOURS: "soon" })).toThrow();
    expect(loadEnv({ NODE_ENV: "test" })).toMatchObject({
      RESUMABLE_UPLOADS_PER_PERSON: 4,
      RESUMABLE_UPLOADS_MIB_PER_PERSON: 25,
      RESUMABLE_UPLOADS_MIB_TOTAL: 512,
      RESUMABLE_UPLOAD_HOURS: 24,
    });
  });

  it("a backup carries no unfinished upload: the tables, without their rows", async () => {
    const [held] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from resumable_upload_parts`);
    expect(held!.n).toBeGreaterThan(0);
    const dir = mkdtempSync(path.join(tmpdir(), "cm-tus-backup-"));
    try {
      const file = path.join(dir, "b.cmbackup");
      await writeBackup(process.env.DATABASE_URL!, file, signingKey());
      const { manifest, rowsByTable } = await verifyBackupFile(file, { keys: auditKeys() });
      expect(manifest.tables.map((t) => `${t.schema}.${t.name}`)).toEqual(
        expect.arrayContaining(["public.resumable_uploads", "public.resumable_upload_parts"]),
      );
      expect(rowsByTable["public.resumable_uploads"]).toBe(0);
      expect(rowsByTable["public.resumable_upload_parts"]).toBe(0);
      expect(rowsByTable["public.attachments"]).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("what an upload may be, asked before its first byte", () => {
  it.each([
    ["a NUL", "Drawing\u0000.pdf", /control characters/],
    ["a line break", "Draw\ning.pdf", /control characters/],
    ["a right-to-left override", "Invoice\u202efdp.pdf", /right-to-left overrides/],
  ])("a file name with %s is 400 at creation, and nothing is kept", async (_what, name, message) => {
    const crew = await makeCast();
    const record = await createMocOk(crew);
    const answer = await create(crew.originator, record, 1000, name);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toMatch(message);
    expect(
      await getDb().select().from(resumableUploads).where(eq(resumableUploads.userId, crew.originator._id)),
    ).toEqual([]);
  });

  it("answers carry no CORS header: the app's own pages are its only client", async () => {
    const created = await tus(cast.originator, "POST", "/tus/attachments", {
      Origin: "https://elsewhere.example",
      "Upload-Length": "1000",
      "Upload-Metadata": `filename ${b64("a.pdf")},record ${b64(`moc:${moc._id}`)}`,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const preflight = await tus(cast.originator, "OPTIONS", "/tus/attachments", {
      Origin: "https://elsewhere.example",
      "Access-Control-Request-Method": "POST",
    });
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("a PCR with a signature takes no file: 409 before a byte is sent", async () => {
    const originator = await makeUser({ name: "PCR originator" });
    const pcr = await createPcrOk(originator);
    const upload = (record: string) =>
      tus(originator, "POST", "/tus/attachments", {
        "Upload-Length": "1000",
        "Upload-Metadata": `filename ${b64("a.pdf")},record ${b64(record)}`,
      });
    expect((await upload(`pcr:${pcr._id}`)).status).toBe(201);
    await signOk(originator, pcr._id, "Change Originator");
    const refused = await upload(`pcr:${pcr._id}`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toBe(SIGNED_PCR_FILES_FROZEN);
  });
});
