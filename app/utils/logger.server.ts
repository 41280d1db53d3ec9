import { pino } from "pino";
import { currentRequestId } from "./request-context.server";

const holder = globalThis as typeof globalThis & {
  __cmLogger?: pino.Logger;
  __cmRequestLogger?: pino.Logger;
  __cmLogDestination?: pino.DestinationStream;
};

/**
 * Where every line goes: stdout, written asynchronously, so a request hands its line over and goes
 * on instead of waiting on the write (or on a slow reader of the pipe). pino writes what is pending
 * before the process exits (docs/performance.md, "The floor's own layers").
 */
function destination(): pino.DestinationStream {
  return (holder.__cmLogDestination ??= pino.destination({ dest: 1, sync: false }));
}

function options(): pino.LoggerOptions {
  return {
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
    base: { service: "change-management" },
    // Every line written while serving a request, or a job it queued, names that request.
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
  };
}

/**
 * Structured JSON logs. Anything that could carry a secret is redacted by path, and request URLs
 * are logged without their query string (GET /api/verify carries a password there).
 */
export function logger(): pino.Logger {
  holder.__cmLogger ??= pino(
    {
      ...options(),
      redact: {
        paths: [
          "password",
          "*.password",
          "currentPassword",
          "*.currentPassword",
          "passwordHash",
          "*.passwordHash",
          "token",
          "*.token",
          "headers.cookie",
          "headers.authorization",
          "*.headers.cookie",
          "*.headers.authorization",
          "apiKey",
          "*.apiKey",
        ],
        censor: "[redacted]",
      },
    },
    destination(),
  );
  return holder.__cmLogger;
}

/** One line per request: method, path, status and time, written here only. */
export type RequestLine = { method: string; path: string; status: number; ms: number };

/**
 * The request lines (app/server/main.ts). Their fields are fixed and carry nothing to redact (the
 * path without its query string), so they skip the redaction that every other line pays, about a
 * tenth of a small request's time (docs/performance.md, "The floor's own layers").
 */
export function requestLogger(): { enabled: boolean; line: (line: RequestLine) => void } {
  const log = (holder.__cmRequestLogger ??= pino(options(), destination()));
  return { enabled: log.isLevelEnabled("info"), line: (line) => log.info(line, "request") };
}

/** A URL's path only: query strings may hold credentials (GET /api/verify). */
export function pathOnly(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? url : url.slice(0, index);
}
