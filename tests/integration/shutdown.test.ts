/**
 * SIGTERM on the real server (app/server/main.ts) with connections kept alive: it answers the
 * request in flight, closes every connection once idle and exits 0 at once, although it keeps an
 * idle connection two minutes while running (docs/decisions/032-pages-at-sea.md, "Connections").
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { closeDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { resetEnv } from "~/utils/env.server";
import { createAppDatabase, dropDatabase } from "../helpers/databases";
import { answerAfter, rawConnection } from "../helpers/raw-http";
import { ensureProductionBuild, startRealServer, type RealServer } from "../helpers/real-server";

const serverUrl = inject("dbServerUrl");
const database = `cm_shutdown_${randomBytes(5).toString("hex")}`;
let server: RealServer | undefined;

beforeAll(async () => {
  await stopBoss();
  await closeDb();
  const url = await createAppDatabase(serverUrl, database);
  resetEnv();
  await ensureProductionBuild();
  server = await startRealServer({ DATABASE_URL: url });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await dropDatabase(serverUrl, database);
}, 60_000);

it("SIGTERM answers the request in flight, closes the kept-alive connections and exits 0 at once", async () => {
  const host = new URL(server!.url).host;
  // One connection kept alive after its answer, idle when the signal comes.
  const idle = rawConnection(server!.url);
  idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  const first = await answerAfter(idle);
  expect(first?.status).toBe(200);
  expect(first?.head).toMatch(/\r\nKeep-Alive: timeout=120\r\n/i);

  // One request in flight: the sign-in form's body is half sent when the signal comes.
  const body = "email=nobody%40example.com&password=wrong-password";
  const busy = rawConnection(server!.url);
  busy.socket.write(
    `POST /login HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${server!.url}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, 10),
  );
  await new Promise((resolve) => setTimeout(resolve, 500));

  const started = Date.now();
  const stopped = server!.stop();
  await idle.ended;
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(busy.socket.destroyed).toBe(false);
  busy.socket.write(body.slice(10));
  await busy.ended;
  // Answered (a refused sign-in), then closed by the server.
  expect(busy.text()).toMatch(/^HTTP\/1\.1 [234]\d\d /);
  expect(await stopped).toBe(0);
  // The server's forced exit comes at 25 s (exit 1); the kept-alive connection would last 120 s.
  expect(Date.now() - started).toBeLessThan(15_000);
  server = undefined;
}, 60_000);
