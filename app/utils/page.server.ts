import { data } from "@remix-run/node";
import type { SubmissionResult } from "@conform-to/react";
import type { z } from "zod";
import { DomainError, fromDatabaseError } from "./errors";

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
    const refused = fromDatabaseError(error);
    if (refused) return { ok: false, error: refused };
    throw error;
  }
}

/** Loaders throw this for a domain error so the page shows the 403/404 error page. */
export function pageError(error: DomainError): never {
  throw data({ message: error.message }, { status: error.status });
}

/**
 * A page's query string read with `schema` (a list's filters): what the schema refuses (a control
 * character in a search) is the 400 error page with the first issue's message, never a 500.
 */
export function readPageQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) {
    throw data({ message: parsed.error.issues[0]?.message ?? "The address is not valid" }, { status: 400 });
  }
  return parsed.data;
}

/**
 * Field errors keyed the way conform expects, from a domain error's issues (models key them by
 * form field); `rename` maps a model's name to the page's where the two differ.
 */
export function fieldErrors(error: DomainError, rename: (path: string) => string = (p) => p): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues ?? []) (out[rename(issue.path)] ??= []).push(issue.message);
  return out;
}

/** A conform submission of any schema: only its reply is used. */
type Replyable = {
  reply: (options?: {
    formErrors?: string[];
    fieldErrors?: Record<string, string[]>;
    hideFields?: string[];
  }) => SubmissionResult<string[]>;
};

/** A page action's answer to a refused domain call: the form again, errors next to the fields. */
export function domainErrorReply(submission: Replyable, error: DomainError, rename?: (path: string) => string) {
  const errors = fieldErrors(error, rename);
  const reply = Object.keys(errors).length
    ? submission.reply({ fieldErrors: errors })
    : submission.reply({ formErrors: [error.message] });
  return data(reply, { status: error.status });
}
