import { pino } from "pino";
import { currentRequestId } from "./request-context.server";

const holder = globalThis as typeof globalThis & { __cmLogger?: pino.Logger };

/**
 * Structured JSON logs. Anything that could carry a secret is redacted by path, and request URLs
 * are logged without their query string (GET /api/verify carries a password there).
 */
export function logger(): pino.Logger {
  holder.__cmLogger ??= pino({
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
    base: { service: "change-management" },
    // Every line written while serving a request, or a job it queued, names that request.
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
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
  });
  return holder.__cmLogger;
}

/** A URL's path only: query strings may hold credentials (GET /api/verify). */
export function pathOnly(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? url : url.slice(0, index);
}
