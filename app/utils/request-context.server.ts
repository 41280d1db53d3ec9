/**
 * The request id a piece of work belongs to: set for each HTTP request (app/server/observability.ts)
 * and for each job a request queued (jobs/workers.ts), read by the logger (every line carries it)
 * and by `sendInTransaction` (a queued job carries it on). docs/architecture.md, "Operations".
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

type Context = { requestId: string; once?: Map<string, Promise<unknown>> };

// On globalThis: a process that loads this module twice (the dev server's reloads) keeps one store.
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

/**
 * `compute`'s promise, made once per request (or job) for `key` and shared by every caller in it;
 * outside one (a test calling a loader itself), `compute` each time. For what the loaders of one
 * page would otherwise each read again (the signed-in identity: app/web/auth.server.ts).
 */
export function oncePerRequest<T>(key: string, compute: () => Promise<T>): Promise<T> {
  const context = store.getStore();
  if (!context) return compute();
  const once = (context.once ??= new Map());
  let found = once.get(key) as Promise<T> | undefined;
  if (!found) {
    found = compute();
    once.set(key, found);
  }
  return found;
}
