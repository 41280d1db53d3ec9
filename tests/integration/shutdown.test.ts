/**
 * SIGTERM on the real server (app/server/main.ts) with connections kept alive: it answers the
 * request in flight, closes every connection once idle and exits 0 at once, although it keeps an
 * idle connection two minutes while running (docs/decisions/032-pages-at-sea.md, "Connections").
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { closeDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { resetEnv } from "~/utils/env.server";
import { createAppDatabase, dropDatabase } from "../helpers/databases";
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

/** A socket to the server that collects what it receives and notes when the server closes it. */
async function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(server!.url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => received, closed };
}

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

it("SIGTERM answers the request in flight, closes the kept-alive connections and exits 0 at once", async () => {
  const host = new URL(server!.url).host;
  // One connection kept alive after its answer, idle when the signal comes.
  const idle = await open();
  idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  await until(() => idle.received().includes("\r\n0\r\n\r\n"), "the first answer");
  expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
  expect(idle.received()).toMatch(/\r\nKeep-Alive: timeout=120\r\n/i);

  // One request in flight: the sign-in form's body is half sent when the signal comes.
  const body = "email=nobody%40example.com&password=wrong-password";
  const busy = await open();
  busy.socket.write(
    `POST /login HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${server!.url}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, 10),
  );
  await new Promise((resolve) => setTimeout(resolve, 500));

  const started = Date.now();
  const stopped = server!.stop();
  await idle.closed;
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(busy.socket.destroyed).toBe(false);
  busy.socket.write(body.slice(10));
  await busy.closed;
  // Answered (a refused sign-in), then closed by the server.
  expect(busy.received()).toMatch(/^HTTP\/1\.1 [234]\d\d /);
  expect(await stopped).toBe(0);
  // The server's forced exit comes at 25 s (exit 1); the kept-alive connection would last 120 s.
  expect(Date.now() - started).toBeLessThan(15_000);
  server = undefined;
}, 60_000);
