/**
 * A local stand-in for Resend's HTTP API, driven through the real `resend` SDK via
 * RESEND_BASE_URL. It keeps what Resend promises and enforces what Resend enforces:
 *
 * - `POST /emails` and `POST /emails/batch` (at most 100 emails; `x-batch-validation: strict`,
 *   the default, refuses the whole batch with 422 if one email is invalid, `permissive` sends the
 *   valid ones and lists the others in `errors` by index);
 * - `Idempotency-Key`, kept 24 hours: a repeated key returns the first answer and delivers nothing
 *   new; the same key with another payload is a 409;
 * - a request rate (default 2 per second, a sliding one-second window over the requests it
 *   answered): beyond it, 429 with `retry-after` and `ratelimit-*` headers, nothing processed;
 * - configurable latency, and 429 or 500 answers injected at a rate; tests can also make it fail,
 *   hang, or reject chosen addresses.
 *
 * Every email carries the app's message id as a `message_id` tag, so duplicates are counted by it.
 */
import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Delivery = {
  id: string;
  idempotencyKey: string | null;
  /** The app's message id (the `message_id` tag), null if the sender sent none. */
  messageId: string | null;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The email's own headers (List-Unsubscribe), as the SDK sent them. */
  headers: Record<string, string>;
  at: number;
};

export type FakeRequest = {
  path: string;
  idempotencyKey: string | null;
  at: number;
  status: number;
  emails: number;
};

export type FakeResendOptions = {
  /** Requests answered per second before 429s; 0 turns the limit off. Default 2. */
  requestsPerSecond?: number;
  /** Delay before each answer, in ms. Default 0. */
  latencyMs?: number;
  /** Share of requests answered 429 / 500 at random, before anything is processed. Default 0. */
  rate429?: number;
  rate500?: number;
  /** Seconds named in `retry-after` for the injected 429s. Default 1. */
  injectedRetryAfterSeconds?: number;
};

export type FakeResend = {
  url: string;
  /** Emails actually "sent" (once per idempotency key). */
  deliveries: Delivery[];
  /** Every POST received, including repeats and failures, with the status answered. */
  requests: FakeRequest[];
  /** The next `n` requests answer 500. */
  failNext(n: number): void;
  /** The next `n` requests answer 429 with `retry-after: seconds`. */
  rateLimitNext(n: number, seconds: number): void;
  /** Accept (record) matching requests but never answer them, as if the connection died. */
  hangWhen(predicate: ((body: { subject: string; to: string[] }) => boolean) | null): void;
  /** Emails to these addresses fail validation, as a malformed address would. */
  rejectWhen(predicate: ((to: string) => boolean) | null): void;
  /** Changes latency, injected rates or the request limit. */
  configure(options: FakeResendOptions): void;
  /** The most requests answered (not 429) within any one-second window. */
  maxPerSecond(since?: number): number;
  /** Message ids delivered more than once. */
  duplicates(): string[];
  close(): Promise<void>;
};

type EmailBody = {
  to: string[] | string;
  subject: string;
  text: string;
  html: string;
  tags?: { name: string; value: string }[];
  headers?: Record<string, string>;
};
type Answer = { status: number; body: unknown; headers?: Record<string, string> };

const DAY_MS = 24 * 60 * 60 * 1000;
const ADDRESS = /^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/;

export async function startFakeResend(initial: FakeResendOptions = {}): Promise<FakeResend> {
  const options: Required<FakeResendOptions> = {
    requestsPerSecond: 2,
    latencyMs: 0,
    rate429: 0,
    rate500: 0,
    injectedRetryAfterSeconds: 1,
    ...initial,
  };
  const deliveries: Delivery[] = [];
  const requests: FakeRequest[] = [];
  const byKey = new Map<string, { fingerprint: string; answer: Answer; at: number }>();
  let failures = 0;
  let limited = { n: 0, seconds: 1 };
  let hang: ((body: { subject: string; to: string[] }) => boolean) | null = null;
  let reject: ((to: string) => boolean) | null = null;
  const sockets = new Set<Socket>();

  /** Answered (non-429) request times, for the sliding window. */
  const answeredAt: number[] = [];

  function rateHeaders(now: number): Record<string, string> {
    const limit = options.requestsPerSecond;
    const recent = answeredAt.filter((t) => t > now - 1000 && t <= now);
    const oldest = recent.length ? Math.min(...recent) : now;
    return {
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": String(Math.max(0, limit - recent.length)),
      "ratelimit-reset": String(Math.max(0, Math.ceil((oldest + 1000 - now) / 1000))),
    };
  }

  function tooMany(retryAfterSeconds: number, now: number): Answer {
    return {
      status: 429,
      body: {
        name: "rate_limit_exceeded",
        message: "Too many requests. You can only make 2 requests per second.",
        statusCode: 429,
      },
      headers: { ...rateHeaders(now), "retry-after": String(retryAfterSeconds) },
    };
  }

  const validationError = (message: string): Answer => ({
    status: 422,
    body: { name: "validation_error", message, statusCode: 422 },
  });

  function invalidReason(email: EmailBody, to: string[]): string | null {
    if (!email || typeof email.subject !== "string" || to.length === 0) return "Missing `to` or `subject` field.";
    for (const address of to) {
      if (!ADDRESS.test(address) || reject?.(address)) {
        return `Invalid \`to\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`;
      }
    }
    return null;
  }

  function deliver(email: EmailBody, to: string[], key: string | null, now: number): { id: string } {
    const id = randomUUID();
    deliveries.push({
      id,
      idempotencyKey: key,
      messageId: email.tags?.find((t) => t.name === "message_id")?.value ?? null,
      to,
      subject: email.subject,
      text: email.text,
      html: email.html,
      headers: email.headers ?? {},
      at: now,
    });
    return { id };
  }

  /** Processes a request that passed the rate limit; returns its answer and whether to hang. */
  function process(
    path: string,
    raw: unknown,
    key: string | null,
    strict: boolean,
    now: number,
  ): { answer: Answer; hang: boolean } {
    if (path === "/emails") {
      const email = raw as EmailBody;
      const to = Array.isArray(email?.to) ? email.to : [email?.to];
      const reason = invalidReason(email, to);
      if (reason) return { answer: validationError(reason), hang: false };
      const answer = { status: 200, body: deliver(email, to, key, now) };
      return { answer, hang: Boolean(hang?.({ subject: email.subject, to })) };
    }
    if (!Array.isArray(raw)) return { answer: validationError("The batch must be an array of emails."), hang: false };
    if (raw.length === 0 || raw.length > 100) {
      return { answer: validationError("A batch holds between 1 and 100 emails."), hang: false };
    }
    const emails = raw as EmailBody[];
    const lists = emails.map((e) => (Array.isArray(e?.to) ? e.to : [e?.to]));
    const reasons = emails.map((e, i) => invalidReason(e, lists[i]!));
    if (strict) {
      const first = reasons.findIndex((r) => r !== null);
      if (first >= 0) return { answer: validationError(`emails[${first}]: ${reasons[first]}`), hang: false };
    }
    const data: { id: string }[] = [];
    const errors: { index: number; message: string }[] = [];
    let hangs = false;
    emails.forEach((email, index) => {
      const reason = reasons[index];
      if (reason) {
        errors.push({ index, message: reason });
        return;
      }
      data.push(deliver(email, lists[index]!, key, now));
      if (hang?.({ subject: email.subject, to: lists[index]! })) hangs = true;
    });
    return { answer: { status: 200, body: strict ? { data } : { data, errors } }, hang: hangs };
  }

  const server = http.createServer((req, res) => {
    // A request is counted when it arrives, not when its body has been read.
    const arrived = Date.now();
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", async () => {
      const send = (answer: Answer) => {
        res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.body));
      };
      const path = req.url ?? "";
      const now = arrived;
      const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
      const entry: FakeRequest = { path, idempotencyKey: key, at: now, status: 0, emails: 0 };
      requests.push(entry);
      const answer = async (answer: Answer, hangs = false) => {
        entry.status = answer.status;
        if (answer.status !== 429) answeredAt.push(now);
        if (answeredAt.length > 2000) answeredAt.splice(0, 1000);
        if (options.latencyMs > 0) await new Promise((r) => setTimeout(r, options.latencyMs));
        if (hangs) return; // accepted, but the answer never comes
        send({ ...answer, headers: { ...rateHeaders(Date.now()), ...answer.headers } });
      };

      if (req.method !== "POST" || (path !== "/emails" && path !== "/emails/batch")) {
        return answer({ status: 404, body: { name: "not_found", message: "Not found", statusCode: 404 } });
      }
      if (!String(req.headers.authorization ?? "").startsWith("Bearer ")) {
        return answer({ status: 401, body: { name: "missing_api_key", message: "Missing API key", statusCode: 401 } });
      }
      // The rate: requests answered that arrived within the last second, whatever their outcome.
      if (options.requestsPerSecond > 0) {
        const recent = answeredAt.filter((t) => t > now - 1000 && t <= now);
        if (recent.length >= options.requestsPerSecond) {
          return answer(tooMany(Math.max(1, Math.ceil((Math.min(...recent) + 1000 - now) / 1000)), now));
        }
      }
      if (limited.n > 0) {
        limited.n -= 1;
        return answer(tooMany(limited.seconds, now));
      }
      if (options.rate429 > 0 && Math.random() < options.rate429) {
        return answer(tooMany(options.injectedRetryAfterSeconds, now));
      }
      if (failures > 0 || (options.rate500 > 0 && Math.random() < options.rate500)) {
        if (failures > 0) failures -= 1;
        return answer({
          status: 500,
          body: { name: "internal_server_error", message: "Simulated outage", statusCode: 500 },
        });
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return answer(validationError("The body is not valid JSON."));
      }
      entry.emails = Array.isArray(body) ? body.length : 1;
      const fingerprint = createHash("sha256").update(`${path}\n${raw}`).digest("hex");
      if (key) {
        const previous = byKey.get(key);
        if (previous && previous.at > now - DAY_MS) {
          if (previous.fingerprint !== fingerprint) {
            return answer({
              status: 409,
              body: {
                name: "invalid_idempotent_request",
                message: "Same idempotency key used with a different request payload.",
                statusCode: 409,
              },
            });
          }
          return answer(previous.answer);
        }
      }
      const strict = (req.headers["x-batch-validation"] ?? "strict") !== "permissive";
      const result = process(path, body, key, strict, now);
      // Only a request that was processed keeps its key (an invalid one may be corrected and sent again).
      if (key && result.answer.status === 200) byKey.set(key, { fingerprint, answer: result.answer, at: now });
      return answer(result.answer, result.hang);
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
    rateLimitNext(n, seconds) {
      limited = { n, seconds };
    },
    hangWhen(predicate) {
      hang = predicate;
    },
    rejectWhen(predicate) {
      reject = predicate;
    },
    configure(next) {
      Object.assign(options, next);
    },
    maxPerSecond(since = 0) {
      const times = requests
        .filter((r) => r.status !== 429 && r.at >= since)
        .map((r) => r.at)
        .sort((a, b) => a - b);
      let max = 0;
      for (let i = 0, j = 0; j < times.length; j++) {
        while (times[j]! - times[i]! >= 1000) i++;
        max = Math.max(max, j - i + 1);
      }
      return max;
    },
    duplicates() {
      const seen = new Map<string, number>();
      for (const d of deliveries) if (d.messageId) seen.set(d.messageId, (seen.get(d.messageId) ?? 0) + 1);
      return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
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
