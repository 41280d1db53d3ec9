import { data } from "@remix-run/node";
import { DomainError } from "./errors";

/**
 * Runs a page action's domain call; a domain error becomes a response the page can show
 * (status kept), anything else propagates to the error boundary.
 */
export async function runForPage<T>(
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: DomainError }> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, error };
    throw error;
  }
}

/** Loaders throw this for a domain error so the page shows the 403/404 error page. */
export function pageError(error: DomainError): never {
  throw data({ message: error.message }, { status: error.status });
}

/** Field errors keyed the way conform expects, from a domain error's issues. */
export function fieldErrors(error: DomainError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues ?? []) (out[issue.path] ??= []).push(issue.message);
  return out;
}
