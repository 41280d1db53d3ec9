/**
 * The HTTP layer of the real server (app/server/main.ts) over real sockets (docs/security.md):
 * body caps counted whatever the framing, a 413 that the client reads and that leaves its next
 * request working, cross-origin page posts, a malformed path under /api, headers set once.
 * Each request here goes through one undici connection (`Client`), as a browser or proxy reuses one.
 */
import { Readable } from "node:stream";
import { Client } from "undici";
import { answerAfter, rawConnection } from "../helpers/raw-http";
import { expect, test } from "./moc-fixtures";

const MiB = 1024 * 1024;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

async function send(client: Client, options: Parameters<Client["request"]>[0]): Promise<Answer> {
  const response = await client.request(options);
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

async function* chunks(count: number, fill: string) {
  for (let i = 0; i < count; i++) yield Buffer.alloc(64 * 1024, fill);
}

/** `count` chunks of 64 KiB, sent with chunked framing (no Content-Length). */
const chunked = (count: number, fill = "a") => Readable.from(chunks(count, fill));

test.describe("body caps and keep-alive", { tag: "@http" }, () => {
  let client: Client;
  test.beforeEach(({ baseURL }) => {
    client = new Client(baseURL!, { pipelining: 1, connections: 1 } as ConstructorParameters<typeof Client>[1]);
  });
  test.afterEach(async () => {
    await client.close();
  });

  test("a form post declaring 2 MiB gets a 413 page that closes the connection; the next request works", async () => {
    const answer = await send(client, {
      path: "/login",
      method: "POST",
      headers: FORM,
      body: Buffer.alloc(2 * MiB, "a"),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers["connection"]).toBe("close");
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.text).toContain("The request body is larger than 1 MiB");
    const next = await send(client, { path: "/healthz", method: "GET" });
    expect(next.status).toBe(200);
  });

  test("a chunked 20 MiB form post is cut at 1 MiB with a 413 the client reads; the next request works", async () => {
    const started = Date.now();
    const answer = await send(client, { path: "/login", method: "POST", headers: FORM, body: chunked(320) });
    expect(answer.status).toBe(413);
    expect(answer.headers["connection"]).toBe("close");
    expect(answer.text).toContain("larger than 1 MiB");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await send(client, { path: "/healthz", method: "GET" })).status).toBe(200);
  });

  test("under /api the 413 is JSON, for a chunked body and a declared one", async ({ adminToken }) => {
    const headers = { "content-type": "application/json", authorization: `Bearer ${adminToken}` };
    const streamed = await send(client, { path: "/api/pcr", method: "POST", headers, body: chunked(48) });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.text)).toEqual({ status: 413, message: "The request body is larger than 1 MiB" });
    const declared = await send(client, {
      path: "/api/pcr",
      method: "POST",
      headers,
      body: Buffer.alloc(2 * MiB, " "),
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toEqual({ status: 413, message: "The request body is larger than 1 MiB" });
    expect((await send(client, { path: "/healthz", method: "GET" })).status).toBe(200);
  });

  test("an answer given before the body is read closes the connection cleanly", async () => {
    // Signed out: the upload page redirects to /login without reading the 3 MiB it was sent.
    const answer = await send(client, {
      path: "/mocs/00000000-0000-4000-8000-000000000000/risk",
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body: chunked(48),
    });
    expect(answer.status).toBe(302);
    expect(answer.headers["connection"]).toBe("close");
    expect((await send(client, { path: "/healthz", method: "GET" })).status).toBe(200);
  });

  test("the risk-assessment upload has its own 10 MiB cap, counted on a chunked body too", async ({ cast, mocApi }) => {
    const moc = await mocApi.create(cast);
    const headers = {
      "content-type": "multipart/form-data; boundary=BOUNDARY",
      cookie: `session=${cast.originator.cookie}`,
    };
    const path = `/mocs/${moc._id}/risk`;
    async function* parts(fileChunks: number) {
      yield Buffer.from(
        '--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="risk.txt"\r\nContent-Type: text/plain\r\n\r\n',
      );
      yield* chunks(fileChunks, "r");
      yield Buffer.from("\r\n--BOUNDARY--\r\n");
    }
    const upload = (fileChunks: number) => Readable.from(parts(fileChunks));
    // 12 MiB, chunked: refused at the cap.
    const tooLarge = await send(client, { path, method: "POST", headers, body: upload(192) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.text).toContain("larger than 10 MiB");
    // 2 MiB, chunked: more than a form may send, within the upload's cap; stored.
    const fits = await send(client, { path, method: "POST", headers, body: upload(32) });
    expect(fits.status).toBe(302);
    expect(fits.headers["location"]).toBe(`/mocs/${moc._id}`);
    const stored = (await mocApi.get(moc._id)) as { risk_assessment: string };
    expect(stored.risk_assessment).toMatch(/^\/attachments\/[0-9a-f-]{36}$/);

    // The download carries X-Content-Type-Options once, not once from the route and once from the server.
    const download = await send(client, {
      path: stored.risk_assessment,
      method: "GET",
      headers: { cookie: headers.cookie },
    });
    expect(download.status).toBe(200);
    expect(download.text.length).toBe(2 * MiB);
    expect(download.headers["x-content-type-options"]).toBe("nosniff");
  });
});

test("an idle connection stays open across a reading pause, as a ship's next click needs it @http", async ({
  baseURL,
}) => {
  // docs/decisions/032-pages-at-sea.md, "Connections": Node's default closed it after 5 s (6 s
  // with its margin), and a client sending its next request then had it reset.
  const connection = rawConnection(baseURL!);
  const get = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n`;
  try {
    connection.socket.write(get);
    const first = await answerAfter(connection);
    expect(first).toBeDefined();
    expect(first!.head).toMatch(/\r\nKeep-Alive: timeout=120\r\n/i);
    const seen = connection.text().length;
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(connection.closed()).toBe(false);
    connection.socket.write(get);
    const next = await answerAfter(connection, seen);
    expect(connection.closed()).toBe(false);
    expect(next?.status).toBe(200);
  } finally {
    connection.socket.destroy();
  }
});

test.describe("origins, paths and headers", { tag: "@http" }, () => {
  let client: Client;
  test.beforeEach(({ baseURL }) => {
    client = new Client(baseURL!);
  });
  test.afterEach(async () => {
    await client.close();
  });

  test("a page post from another origin gets the 403 page, not a 500", async ({ createUser }) => {
    const user = await createUser();
    for (const origin of ["http://evil.example", "null"]) {
      const answer = await send(client, {
        path: "/profile",
        method: "POST",
        headers: { ...FORM, origin, cookie: `session=${user.cookie}` },
        body: new URLSearchParams({ intent: "details", name: "Mallory", email: user.email }).toString(),
      });
      expect(answer.status).toBe(403);
      expect(answer.headers["content-type"]).toMatch(/^text\/html/);
      expect(answer.text).toContain("Cross-site requests are not allowed");
    }
    // Nothing changed.
    const me = await send(client, {
      path: "/api/myUser",
      method: "GET",
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(JSON.parse(me.text).userData.name).toBe(user.name);
  });

  test("a post from the APP_URL origin is accepted behind a proxy that keeps its own Host", async ({
    createUser,
    baseURL,
  }) => {
    // An admin: only admins change a display name, their own included (docs/decisions/026-four-eyes-by-record.md).
    const user = await createUser({ role: "admin" });
    const answer = await send(client, {
      path: "/profile",
      method: "POST",
      headers: { ...FORM, origin: baseURL!, host: "app-backend.internal:8080", cookie: `session=${user.cookie}` },
      body: new URLSearchParams({ intent: "details", name: "Renamed Behind Proxy", email: user.email }).toString(),
    });
    expect(answer.status).toBe(302);
    const me = await send(client, {
      path: "/api/myUser",
      method: "GET",
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(JSON.parse(me.text).userData.name).toBe("Renamed Behind Proxy");
  });

  test("a malformed percent-encoding under /api answers JSON", async ({ adminToken }) => {
    const answer = await send(client, {
      path: "/api/pcr/%ff",
      method: "GET",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    const message = "The URL path is not valid: it has a malformed percent-encoding (such as %ff)";
    // Every 400 under /api lists its issues (docs/decisions/031-api-contract.md).
    expect(JSON.parse(answer.text)).toEqual({ status: 400, message, issues: [{ path: "", message }] });
    // Elsewhere, a page.
    const page = await send(client, { path: "/mocs/%ff", method: "GET" });
    expect(page.status).toBe(400);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
  });

  test("an /api address no route serves answers a JSON 404; elsewhere the 404 page", async () => {
    for (const method of ["GET", "POST"]) {
      const answer = await send(client, {
        path: "/api/no-such-route",
        method,
        headers: { "content-type": "application/json" },
      });
      expect(answer.status, method).toBe(404);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(answer.text).status).toBe(404);
    }
    const page = await send(client, { path: "/no-such-page", method: "GET" });
    expect(page.status).toBe(404);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
  });
});
