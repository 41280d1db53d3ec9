/**
 * The /api toolkit: every resource route under /api is built with `apiRoute`, reads its input with
 * `readJson` / `readQuery`, and answers with `ok`. Errors become one body shape:
 * `{ status, message, issues? }` (the API conventions in app/web/openapi.server.ts).
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { z, ZodError } from "zod";
import {
  DatabaseUnavailable,
  DomainError,
  Invalid,
  TooLarge,
  fromDatabaseError,
  isDatabaseUnavailable,
  type Issue,
} from "./errors";
import { logger, pathOnly } from "./logger.server";

export const MAX_BODY_BYTES = 1024 * 1024;

const API_HEADERS = { "Cache-Control": "no-store" } as const;

export function apiJson(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return Response.json(body, { status: init.status ?? 200, headers: { ...API_HEADERS, ...init.headers } });
}

/** The unstated-response default: `{ status: 200, data }`. */
export const ok = (data: unknown, status = 200) => apiJson({ status, data }, { status });

export function errorResponse(
  status: number,
  message: string,
  issues?: Issue[],
  headers?: Record<string, string>,
): Response {
  // Every 400 lists its issues (a client shows them by field); one without a field is about the whole request.
  const listed = issues?.length ? issues : status === 400 ? [{ path: "", message }] : undefined;
  return apiJson(listed ? { status, message, issues: listed } : { status, message }, { status, headers });
}

export function zodIssues(error: ZodError): Issue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * The short error page of an answer the app's own error page cannot render: one from the HTTP
 * layer (app/server/request-handler.ts) or from a resource route a browser opens (a PDF).
 */
export function errorPage(status: number, message: string): string {
  const text = message.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Error ${status}</title></head><body><main><h1>${status}</h1><p>${text}</p><p><a href="/">The dashboard</a></p></main></body></html>`;
}

/**
 * A refusal from a route that answers a file, not a page (a PDF): the error page for a browser
 * (`Accept` names text/html), the API's JSON error body for anything else; `headers` (Retry-After)
 * kept either way.
 */
export function refusal(request: Request, error: DomainError): Response {
  if (!/\btext\/html\b/i.test(request.headers.get("Accept") ?? "")) {
    return errorResponse(error.status, error.message, error.issues, error.headers);
  }
  return new Response(errorPage(error.status, error.message), {
    status: error.status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", ...error.headers },
  });
}

/** Maps anything thrown in a route to a response; unknown errors are logged and answered 500. */
export function toErrorResponse(error: unknown, request: Request): Response {
  if (error instanceof Response) return error;
  if (error instanceof DomainError) return errorResponse(error.status, error.message, error.issues, error.headers);
  if (error instanceof ZodError) return errorResponse(400, "The request is not valid", zodIssues(error));
  const refused = fromDatabaseError(error);
  if (refused) return errorResponse(refused.status, refused.message);
  if (isDatabaseUnavailable(error)) {
    logger().warn({ err: error, method: request.method, path: pathOnly(request.url) }, "database unavailable");
    const unavailable = new DatabaseUnavailable();
    return errorResponse(unavailable.status, unavailable.message, undefined, unavailable.headers);
  }
  logger().error(
    { err: error, method: request.method, path: pathOnly(request.url) },
    "unhandled error in an API route",
  );
  return errorResponse(500, "Something went wrong on our side; the change was not applied");
}

/**
 * Runs a model call for an /api route whose body carries the form under `key`: models key their
 * issues by form field (`hseq-name`), the API answers them under the body key
 * (`implementer_form.hseq-name`).
 */
export async function issuesUnder<T>(key: string | null, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (key && error instanceof DomainError && error.issues?.length) {
      const issues = error.issues.map((issue) => ({ ...issue, path: `${key}.${issue.path}` }));
      throw new DomainError(error.status, error.message, issues, error.headers);
    }
    throw error;
  }
}

/** Parses with a zod schema, turning failures into a 400 with the issues listed. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, what = "The request body"): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new Invalid(`${what} is not valid`, zodIssues(parsed.error));
  return parsed.data;
}

/** Reads at most 1 MiB of the body, however it is framed (Content-Length can be absent or false). */
async function readLimitedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw new TooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw new TooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The JSON body, validated. Malformed JSON is 400, an oversized body 413. */
export async function readJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const text = await readLimitedText(request);
  if (text.trim() === "") {
    throw new Invalid("The request body is empty; send a JSON object", [
      { path: "", message: "Expected a JSON object" },
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Invalid("The request body is not valid JSON", [{ path: "", message: "Expected valid JSON" }]);
  }
  return validate(schema, body);
}

/** Like readJson, for callers that must look at the raw object before validating it. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  return readJson(request, z.record(z.string(), z.unknown(), { error: "The request body must be a JSON object" }));
}

export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  return validate(schema, params, "The query string");
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Handler = (args: LoaderFunctionArgs | ActionFunctionArgs) => Promise<Response>;

/**
 * One resource route with a handler per method. GET goes through the loader, the rest through
 * the action; any other method is 405 with `Allow`.
 */
export function apiRoute(handlers: Partial<Record<Method, Handler>>) {
  const allow = Object.keys(handlers).join(", ");
  const dispatch = async (args: LoaderFunctionArgs | ActionFunctionArgs): Promise<Response> => {
    const method = args.request.method.toUpperCase() === "HEAD" ? "GET" : (args.request.method.toUpperCase() as Method);
    const handler = handlers[method];
    try {
      if (!handler) {
        return errorResponse(405, `${args.request.method} is not supported here; use ${allow}`, undefined, {
          Allow: allow,
        });
      }
      return await handler(args);
    } catch (error) {
      return toErrorResponse(error, args.request);
    }
  };
  return { loader: (args: LoaderFunctionArgs) => dispatch(args), action: (args: ActionFunctionArgs) => dispatch(args) };
}

/** A success body whose `data` is JSON text that PostgreSQL already built. */
export function okJsonText(dataJson: string): Response {
  return new Response(`{"data":${dataJson},"status":200}`, {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...API_HEADERS },
  });
}

/** Whether the request already holds the version `tag` names (If-None-Match, weak or strong). */
export function holdsVersion(request: Request, tag: string): boolean {
  const held = request.headers.get("If-None-Match");
  return !!held && held.split(",").some((each) => each.trim().replace(/^W\//, "") === `"${tag}"`);
}

/**
 * A success answer whose body was built before (a list: `{"data":[...],"status":200}` as bytes),
 * with its fingerprint as a strong ETag; a request already holding that version gets 304.
 */
export function okJsonBody(
  request: Request,
  list: { etag: string | null; body: Uint8Array | ReadableStream<Uint8Array> },
): Response {
  const etag = list.etag ? `"${list.etag}"` : null;
  const headers: Record<string, string> = { "Content-Type": "application/json; charset=utf-8", ...API_HEADERS };
  if (etag) headers.ETag = etag;
  const body = list.body;
  if (list.etag && holdsVersion(request, list.etag)) {
    // Not read: a streamed list stops filling its spool.
    if (body instanceof ReadableStream) void body.cancel();
    return new Response(null, { status: 304, headers: { ETag: etag!, ...API_HEADERS } });
  }
  if (body instanceof ReadableStream) {
    // A large list streamed from its cursor (models/moc/moc-query.server.ts): its length is known at its end only.
    return new Response(body, { status: 200, headers });
  }
  // A stream of the one chunk, not the bytes themselves: a Response copies a byte body whole
  // (about 0.2 ms and as much garbage per 300 KB list); the stream hands the same bytes to the socket.
  headers["Content-Length"] = String(body.byteLength);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers });
}
