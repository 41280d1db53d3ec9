/**
 * A local stand-in for Resend's HTTP API, driven through the real `resend` SDK via
 * RESEND_BASE_URL. It keeps what Resend promises: a repeated Idempotency-Key returns the first
 * answer without sending again. Tests can make it fail or hang.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Delivery = {
  id: string;
  idempotencyKey: string | null;
  to: string[];
  subject: string;
  text: string;
  html: string;
};

export type FakeResend = {
  url: string;
  /** Emails actually "sent" (one per idempotency key). */
  deliveries: Delivery[];
  /** Every POST /emails received, including repeats and failures. */
  requests: { idempotencyKey: string | null; at: number }[];
  /** The next `n` requests answer 500. */
  failNext(n: number): void;
  /** Accept (record) matching requests but never answer them, as if the connection died. */
  hangWhen(predicate: ((body: { subject: string; to: string[] }) => boolean) | null): void;
  close(): Promise<void>;
};

export async function startFakeResend(): Promise<FakeResend> {
  const deliveries: Delivery[] = [];
  const requests: FakeResend["requests"] = [];
  const byKey = new Map<string, { id: string }>();
  let failures = 0;
  let hang: ((body: { subject: string; to: string[] }) => boolean) | null = null;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/emails") {
        res.writeHead(404, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ name: "not_found", message: "Not found", statusCode: 404 }));
        return;
      }
      const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
      requests.push({ idempotencyKey: key, at: Date.now() });
      if (!String(req.headers.authorization ?? "").startsWith("Bearer ")) {
        res.writeHead(401, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ name: "missing_api_key", message: "Missing API key", statusCode: 401 }));
        return;
      }
      if (failures > 0) {
        failures -= 1;
        res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ name: "internal_server_error", message: "Simulated outage", statusCode: 500 }));
        return;
      }
      const body = JSON.parse(raw) as { to: string[] | string; subject: string; text: string; html: string };
      const to = Array.isArray(body.to) ? body.to : [body.to];
      const previous = key ? byKey.get(key) : undefined;
      if (previous) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(previous));
        return;
      }
      const answer = { id: randomUUID() };
      if (key) byKey.set(key, answer);
      deliveries.push({
        id: answer.id,
        idempotencyKey: key,
        to,
        subject: body.subject,
        text: body.text,
        html: body.html,
      });
      if (hang?.({ subject: body.subject, to })) return; // accepted, but the answer never comes
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    requests,
    failNext(n) {
      failures = n;
    },
    hangWhen(predicate) {
      hang = predicate;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `check` passes or the time is up (then the last failure is thrown). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
