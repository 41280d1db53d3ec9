/**
 * What the listening server (app/server/main.ts) answers before a route runs (issue 40): a method
 * it does not serve (TRACE, CONNECT, one Node's parser does not know) is 405 with `Allow`, never a
 * 500 and never an error in the log; headers too large are 431 with a body in the app's error
 * shape; the search page refuses a NUL in q with its 400. The answers a route gives (a busy PDF, no
 * credentials, an unreachable database) are in hardening.test.ts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { closeDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { resetEnv } from "~/utils/env.server";
import { createAppDatabase, dropDatabase } from "../helpers/databases";
import { makeUser, tokenFor } from "../helpers/factories";
import { answerAfter, rawConnection } from "../helpers/raw-http";
import { ensureProductionBuild, startRealServer, type RealServer } from "../helpers/real-server";
import { sessionCookieHeader } from "../helpers/request";

const serverUrl = inject("dbServerUrl");
const database = `cm_http_${randomBytes(5).toString("hex")}`;
let server: RealServer;

beforeAll(async () => {
  // This process makes the person on the server's own database, as the app's role.
  await stopBoss();
  await closeDb();
  process.env.DATABASE_URL = await createAppDatabase(serverUrl, database);
  resetEnv();
  await ensureProductionBuild();
  // Info lines too: the log must show each refused request, and no error among them.
  server = await startRealServer({ DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: "info" });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await stopBoss();
  await closeDb();
  await dropDatabase(serverUrl, database);
}, 60_000);

/** One request as bytes on its own connection; the whole answer (head and body). */
async function raw(request: string): Promise<{ status: number; head: string; body: string }> {
  const connection = rawConnection(server.url);
  connection.socket.write(request);
  const answer = await answerAfter(connection);
  connection.socket.destroy();
  expect(answer, connection.text()).toBeDefined();
  const text = connection.text();
  return { ...answer!, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

const host = () => new URL(server.url).host;
/** pino's error and fatal lines (level 50, 60) in the server's output. */
const errorLines = () =>
  server
    .output()
    .split("\n")
    .filter((line) => /"level":(50|60)\b/.test(line));

describe("methods the app does not serve", () => {
  const ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

  it.each([
    ["TRACE", "/"],
    ["TRACE", "/api/myUser"],
    ["TRACE", "/mocs"],
    ["TRACK", "/"],
    ["PROPFIND", "/api/search"],
    ["FROBNICATE", "/"],
    ["FROBNICATE", "/api/myUser"],
  ])("%s %s: 405 with Allow, in the error shape of the path, and no error logged", async (method, path) => {
    const answer = await raw(`${method} ${path} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    expect(answer.status, answer.head).toBe(405);
    expect(answer.head).toMatch(new RegExp(`\\r\\nAllow: ${ALLOW}(\\r\\n|$)`, "i"));
    if (path.startsWith("/api/")) {
      expect(answer.head).toMatch(/\r\ncontent-type: application\/json/i);
      expect(JSON.parse(answer.body)).toEqual({ status: 405, message: expect.stringMatching(/not supported/) });
    } else {
      expect(answer.head).toMatch(/\r\ncontent-type: text\/html/i);
      expect(answer.body).toMatch(/<h1>405<\/h1>.*not supported here/s);
    }
    expect(errorLines()).toEqual([]);
  });

  it("CONNECT: 405 with Allow, and no error logged", async () => {
    const answer = await raw(`CONNECT ${host()} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    expect(answer.status, answer.head).toBe(405);
    expect(answer.head).toMatch(new RegExp(`\\r\\nAllow: ${ALLOW}(\\r\\n|$)`, "i"));
    expect(answer.body).toMatch(/not supported here/);
    expect(errorLines()).toEqual([]);
  });

  it("a served method still reaches its route (GET /healthz)", async () => {
    const answer = await raw(`GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
  });
});

describe("headers too large", () => {
  it.each([
    ["/api/myUser", "application/json"],
    ["/mocs", "text/html"],
  ])("%s: 431 with a short body in the error shape (%s), and no error logged", async (path, type) => {
    const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: ${host()}\r\nCookie: filler=${"x".repeat(20_000)}\r\n\r\n`);
    expect(answer.status, answer.head).toBe(431);
    expect(answer.head).toMatch(new RegExp(`\\r\\ncontent-type: ${type.replace("/", "\\/")}`, "i"));
    expect(answer.head).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    expect(answer.body.length).toBeGreaterThan(0);
    expect(answer.body.length).toBeLessThan(1024);
    if (type === "application/json")
      expect(JSON.parse(answer.body)).toEqual({ status: 431, message: expect.stringMatching(/headers are too large/) });
    else expect(answer.body).toMatch(/<h1>431<\/h1>.*headers are too large/s);
    expect(errorLines()).toEqual([]);
  });
});

describe("the search page", () => {
  it("answers a NUL in q with the form and its message, as a 400 page (was a 500)", async () => {
    const token = await tokenFor(await makeUser());
    const res = await fetch(`${server.url}/search?q=pump%00valve`, {
      headers: { Cookie: await sessionCookieHeader(token), Accept: "text/html" },
    });
    const page = await res.text();
    expect(res.status, page.slice(0, 300)).toBe(400);
    expect(page).toContain("Search text must not contain control characters");
    const at = page.indexOf("\u0000");
    expect(at, JSON.stringify(page.slice(Math.max(0, at - 300), at + 100))).toBe(-1);
    expect(errorLines()).toEqual([]);
  });
});
