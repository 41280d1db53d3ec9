/**
 * The request id a piece of work belongs to: set for each HTTP request (app/server/observability.ts)
 * and for each job a request queued (jobs/workers.ts), read by the logger (every line carries it)
 * and by `sendInTransaction` (a queued job carries it on). docs/architecture.md, "Operations".
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

type Context = { requestId: string };

// The server entry and the Remix build each hold a copy of this module: one store per process.
const holder = globalThis as typeof globalThis & { __cmRequestContext?: AsyncLocalStorage<Context> };
const store = (holder.__cmRequestContext ??= new AsyncLocalStorage<Context>());

/** What an id from outside may look like: a proxy's UUID, hex or a short token; anything else is replaced. */
const VALID_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The id of the request (or job) being served, if any. */
export function currentRequestId(): string | undefined {
  return store.getStore()?.requestId;
}

/** The given id when it is well formed, otherwise a new one. */
export function requestIdFrom(candidate: string | undefined | null): string {
  return candidate && VALID_ID.test(candidate) ? candidate : randomUUID();
}

/** Runs `fn` (and everything it starts) as part of the request `requestId`. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return store.run({ requestId }, fn);
}
