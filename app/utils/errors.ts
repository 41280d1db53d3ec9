/**
 * Typed domain errors. Model functions throw these; `utils/http.server.ts` maps them to HTTP
 * statuses in one place, and page loaders/actions turn them into error pages or form messages.
 */
export type Issue = { path: string; message: string };

export class DomainError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 502 | 503 | 504,
    message: string,
    readonly issues?: Issue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class Invalid extends DomainError {
  constructor(message: string, issues?: Issue[]) {
    super(400, message, issues);
  }
}
export class Unauthorized extends DomainError {
  constructor(message = "Sign in to continue") {
    super(401, message);
  }
}
export class Forbidden extends DomainError {
  constructor(message = "You are not allowed to do this") {
    super(403, message);
  }
}
export class NotFound extends DomainError {
  constructor(message = "Not found") {
    super(404, message);
  }
}
export class Conflict extends DomainError {
  /** `issues` name each thing in the way, when there are several (the closure gate's open items). */
  constructor(message: string, issues?: Issue[]) {
    super(409, message, issues);
  }
}
export class TooLarge extends DomainError {
  constructor(message = "The request body is larger than 1 MiB") {
    super(413, message);
  }
}
export class UnsupportedMediaType extends DomainError {
  constructor(message: string) {
    super(415, message);
  }
}
export class RateLimited extends DomainError {
  constructor(retryAfterSeconds: number, message = "Too many attempts; try again later") {
    super(429, message, undefined, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** The SQLSTATE of a PostgreSQL error, whether thrown as is or wrapped by drizzle (`cause`). */
export function databaseErrorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The database cannot be reached (refused, unknown host, timed out, closed, shutting down, out of
 * connections): answered 503 with Retry-After, not 500. Codes of the socket (Node), of postgres.js
 * and of PostgreSQL (class 08, 57P01-57P03, 53300).
 */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

export class DatabaseUnavailable extends DomainError {
  constructor() {
    super(503, "The database cannot be reached just now; try again in a moment", undefined, { "Retry-After": "5" });
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = databaseErrorCode(error);
  return code !== undefined && (UNREACHABLE.has(code) || code.startsWith("08"));
}

/**
 * PostgreSQL refusals that only a client's input can cause, as the 400 they are: a NUL character
 * in text (22021) or in JSON (22P05), a value too large for an index (54000). The transaction has
 * rolled back, so nothing was written. Anything else stays unknown (a 500, logged).
 */
export function fromDatabaseError(error: unknown): DomainError | null {
  const code = databaseErrorCode(error);
  if (code === "22021" || code === "22P05") return new Invalid("Text must not contain NUL (\\u0000) characters");
  if (code === "54000") return new Invalid("A value is too large to store; shorten it");
  return null;
}
