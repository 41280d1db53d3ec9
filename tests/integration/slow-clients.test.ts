/**
 * Slow clients and large records (docs/decisions/027-slow-clients.md): a CSV export a client
 * stops reading, or an upload whose body trickles in, holds no database connection or
 * transaction; each is capped per person (429); a PDF is made on a worker thread, one at a time
 * per person, within a page budget, without stalling the request thread; and the text a MOC's
 * lists hold is bounded on input (400). The same through real sockets, with /healthz and sign-in
 * timed while slow clients run: tests/e2e/slow-clients.socket.spec.ts.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { csvExportsInUse } from "~/models/records-out/csv-export.server";
import { listAttachments } from "~/models/records/attachments.server";
import { pdfsInUse } from "~/models/records-out/record-pdf-worker.server";
import * as mocAttachments from "~/routes/mocs+/$id.attachments";
import * as mocPdf from "~/routes/mocs+/$id_.pdf";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as impactRoute from "~/routes/api+/impact";
import * as oldMoc from "~/routes/api+/oldMoc";
import { getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { uploadsInUse } from "~/web/attachment-upload.server";
import { api } from "../helpers/api";
import { makeUser, tokenFor } from "../helpers/factories";
import { type Cast } from "../helpers/moc";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { buildRequest, sessionCookieHeader } from "../helpers/request";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Other client connections of this test's database inside a transaction (the harm a slow client
 * did). Only client backends: the 1,200 rows inserted below wake autovacuum, whose worker shows in
 * pg_stat_activity with a transaction of its own.
 */
async function inTransaction(): Promise<number> {
  const rows = (await getDb().execute(
    sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
          and backend_type = 'client backend'`,
  )) as unknown as { n: number }[];
  return rows[0]!.n;
}

/** What a route answered: a Response, a thrown Response, or Remix's `data(...)` (status in `init`). */
async function statusOf(run: () => Promise<unknown>): Promise<{ status: number; body: unknown }> {
  let value: unknown;
  try {
    value = await run();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, body: await value.text() };
  const init = (value as { init?: { status?: number } | null; data?: unknown }).init;
  if (init !== undefined) return { status: init?.status ?? 200, body: (value as { data?: unknown }).data };
  throw value;
}

afterEach(() => {
  for (const name of ["PDF_MAX_PAGES", "EXPORTS_PER_PERSON"]) delete process.env[name];
  resetEnv();
});

describe("CSV export with a client that stops reading", () => {
  it("reads the whole list without waiting on the client, then holds no connection; a third export of one person is 429", async () => {
    // 1,200 paper-era MOCs: more batches than a stream buffers ahead.
    await getDb().execute(sql`insert into legacy_mocs (serial_num, title, originator_name, date_raised, description)
      select g || '-1999', 'Archived change ' || g, 'Jan de Vries', '1999-01-01', repeat('x', 200)
      from generate_series(1, 1200) g`);
    const reader = await makeUser();
    const token = await tokenFor(reader);
    const start = async () => {
      const request = await buildRequest({ path: "/api/oldMoc", query: { format: "csv" }, token });
      return oldMoc.loader({ request, params: {}, context: {} } as never);
    };

    const first = await start();
    expect(first.status).toBe(200);
    const body = first.body!.getReader();
    // Streaming: the header arrives before the list is read to its end.
    const { value } = await body.read();
    expect(Buffer.from(value!).toString("utf8")).toContain("Serial,Title");
    // The client now reads nothing more. The export still finishes its reading and lets go (before,
    // its transaction stayed open, idle, for as long as the client did not read).
    await sleep(1_000);
    await expect.poll(inTransaction, { timeout: 15_000 }).toBe(0);
    for (let i = 0; i < 3; i++) {
      await sleep(200);
      expect(await inTransaction()).toBe(0);
    }

    const second = await start();
    expect(second.status).toBe(200);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toMatch(/You have 2 CSV exports running already/);
    expect(refused.headers.get("Retry-After")).toBe("5");
    expect(csvExportsInUse().perUser[reader._id]).toBe(2);

    // Reading on gets every row; the cancelled one frees its slot.
    let rest = Buffer.from(value!).toString("utf8");
    for (;;) {
      const next = await body.read();
      if (next.done) break;
      rest += Buffer.from(next.value).toString("utf8");
    }
    expect(rest.trim().split("\r\n")).toHaveLength(1 + 1200 + (await countLegacyBefore()));
    await second.body!.cancel();
    await expect.poll(() => csvExportsInUse().perUser[reader._id] ?? 0).toBe(0);
    const again = await start();
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});

/** Paper-era MOCs the template database holds apart from the test's own. */
async function countLegacyBefore(): Promise<number> {
  const rows = (await getDb().execute(
    sql`select count(*)::int as n from legacy_mocs where serial_num not like '%-1999'`,
  )) as unknown as { n: number }[];
  return rows[0]!.n;
}

const PDF_HEAD = "%PDF-1.4\n1 0 obj <<>> endobj\n";
const BOUNDARY = "----slowclientboundary";

/** A multipart upload whose body arrives when the test says so. */
async function slowUpload(user: { _id: string }, mocId: string) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  const request = new Request(`http://localhost:3000/mocs/${mocId}/attachments`, {
    method: "POST",
    headers: {
      "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
      Cookie: await sessionCookieHeader(await tokenFor(user as never)),
    },
    body,
    duplex: "half",
  } as RequestInit);
  const answer = statusOf(() => mocAttachments.action({ request, params: { id: mocId }, context: {} } as never));
  return {
    answer,
    send: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => {
      controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}--\r\n`));
      controller.close();
    },
    cut: () => controller.error(new Error("the client went away")),
  };
}

describe("an upload whose body trickles in", () => {
  it("holds no transaction while the body arrives, stores it once whole, and allows two at a time per person", async () => {
    const cast: Cast = await makeCast();
    const moc = await mocAt("e", cast);
    const person = cast.implementer;

    const upload = await slowUpload(person, moc._id);
    upload.send(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="Slow.pdf"\r\nContent-Type: application/pdf\r\n\r\n${PDF_HEAD}`,
    );
    await expect.poll(() => uploadsInUse().perUser[person._id] ?? 0).toBe(1);
    await sleep(500);
    // Before: the upload's transaction was open from the first bytes, waiting for the rest.
    expect(await inTransaction()).toBe(0);

    const second = await slowUpload(person, moc._id);
    second.send(`--${BOUNDARY}\r\n`);
    await expect.poll(() => uploadsInUse().perUser[person._id] ?? 0).toBe(2);
    const third = await slowUpload(person, moc._id);
    third.send(`--${BOUNDARY}\r\n`);
    const refused = await third.answer;
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.body)).toMatch(/You have 2 uploads in progress already/);
    third.cut();

    upload.send("trailer <<>>\n%%EOF\n");
    upload.end();
    const stored = await upload.answer;
    expect(stored.status).toBe(302);
    const files = await listAttachments({ mocId: moc._id });
    expect(files.map((f) => f.name)).toContain("Slow.pdf");

    second.cut();
    await second.answer.catch(() => {});
    await expect.poll(() => uploadsInUse().perUser[person._id] ?? 0).toBe(0);
    expect(await inTransaction()).toBe(0);
  });
});

/** A MOC whose description is `paragraphs` paragraphs of about 1,000 characters (written past the input limits). */
async function longMoc(cast: Cast, paragraphs: number) {
  const moc = await mocAt("b", cast);
  const paragraph = `<p>${"The hull valve on the starboard side is replaced and tested. ".repeat(16)}</p>`;
  await getDb().execute(sql`update moc_forms set data = jsonb_set(data, '{description-of-change,value}',
    to_jsonb(${paragraph.repeat(paragraphs)}::text)) where moc_id = ${moc._id} and kind = 'originator'`);
  return moc;
}

const pdfOf = async (user: { _id: string }, id: string) => {
  const request = await buildRequest({
    path: `/mocs/${id}/pdf`,
    token: await tokenFor(user as never),
    cookie: true,
  });
  return statusOf(() => mocPdf.loader({ request, params: { id }, context: {} } as never));
};

describe("a long record's PDF", () => {
  it("is made off the request thread, one at a time per person", async () => {
    const cast = await makeCast();
    const moc = await longMoc(cast, 400);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const [one, two] = await Promise.all([pdfOf(cast.originator, moc._id), pdfOf(cast.originator, moc._id)]);
    const took = Date.now() - started;
    delay.disable();
    const statuses = [one.status, two.status].sort();
    expect(statuses).toEqual([200, 429]);
    const made = (one.status === 200 ? one : two).body as string;
    expect(made.startsWith("%PDF-")).toBe(true);
    const refusal = JSON.stringify((one.status === 429 ? one : two).body);
    expect(refusal).toMatch(/A PDF you asked for is still being made/);
    const pages = (made.match(/\/Type \/Page\b/g) ?? []).length;
    const worstMs = delay.max / 1e6;
    console.log(
      `PDF of ${pages} pages in ${took} ms; the request thread's worst event-loop delay ${worstMs.toFixed(0)} ms`,
    );
    expect(pages).toBeGreaterThan(50);
    // Before: the whole layout ran on this thread, one block of seconds.
    expect(worstMs).toBeLessThan(Math.max(500, took / 4));
    expect(pdfsInUse().total).toBe(0);
  }, 60_000);

  it("past its page budget is refused with a 422 that points to the print view", async () => {
    process.env.PDF_MAX_PAGES = "5";
    resetEnv();
    const cast = await makeCast();
    const moc = await longMoc(cast, 60);
    const answer = await pdfOf(cast.originator, moc._id);
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toMatch(/too long to make into a PDF \(more than 5 pages\).*print view/);
    // A short one still prints, on the same worker.
    const short = await mocAt("b", cast);
    expect((await pdfOf(cast.originator, short._id)).status).toBe(200);
  }, 60_000);
});

describe("input limits of a MOC's lists", () => {
  it("refuses an action plan or impact assessment past 50,000 characters in all (400), and takes a normal one", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const token = await tokenFor(cast.originator);
    // 200 items of 1,500 characters: within each item's limit and the body cap, 300,000 in all.
    const items = Array.from({ length: 200 }, (_, i) => ({ description: `Step ${i} `.padEnd(1500, "x") }));
    const big = await api(actionTableRoute, {
      method: "POST",
      path: "/api/actionTable",
      token,
      body: { id: moc._id, action: { items } },
    });
    expect(big.status, big.text).toBe(400);
    expect(big.body.issues[0]).toEqual({
      path: "action.items",
      message: "The action plan may hold at most 50,000 characters of text in all; shorten it",
    });
    const normal = await api(actionTableRoute, {
      method: "POST",
      path: "/api/actionTable",
      token,
      body: { id: moc._id, action: { items: items.slice(0, 20) } },
    });
    expect(normal.status, normal.text).toBe(200);

    const hazards = Array.from({ length: 50 }, () => "h".repeat(900));
    const impact = await api(impactRoute, {
      method: "POST",
      path: "/api/impact",
      token,
      body: {
        moc_id: moc._id,
        impact_assessment: Array.from({ length: 10 }, (_, i) => ({ category: `C${i}`, hazards })),
      },
    });
    expect(impact.status, impact.text).toBe(400);
    expect(impact.body.issues[0].message).toMatch(/The impact assessment may hold at most 50,000 characters/);
  });
});

describe("a body its cap or a stall cut short", () => {
  it("is the client's doing: a route that meets it answers 413 or 400 and logs no error", async () => {
    const { BodyStalled, BodyTooLarge, bodyCap } = await import("~/web/body-limit.server");
    const { toErrorResponse } = await import("~/utils/http.server");
    const { logger } = await import("~/utils/logger.server");
    const errors = vi.spyOn(logger(), "error");
    try {
      const request = new Request("http://localhost/api/pcr", { method: "POST" });
      // The client has its answer from the cap already; the route's own answer goes nowhere.
      expect(toErrorResponse(new BodyTooLarge(bodyCap("/api/pcr")), request).status).toBe(413);
      expect(toErrorResponse(new BodyStalled(30), request).status).toBe(400);
      // Before, both were "unhandled error in an API route" in the log (seen in CI's browser run).
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
