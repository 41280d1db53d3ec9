/**
 * Calls a route module's loader or action the way Remix does, with a real Request. Integration
 * tests go through the same code as the server, minus the socket.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { sessionCookie } from "~/utils/cookies.server";

type RouteModule = {
  loader?: (args: LoaderFunctionArgs) => Promise<Response> | Response;
  action?: (args: ActionFunctionArgs) => Promise<Response> | Response;
};

export type CallOptions = {
  method?: string;
  path?: string;
  query?: Record<string, string>;
  /** A value to send as JSON, or a string sent as it is. */
  body?: unknown;
  token?: string;
  /** Send the token as the `session` cookie instead of a bearer header. */
  cookie?: boolean;
  headers?: Record<string, string>;
  params?: Record<string, string>;
};

// Tests read answers of every shape; `any` keeps them short (`res.body.data.name`).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CallResult = { status: number; headers: Headers; body: any; text: string };

export const BASE = "http://localhost:3000";

/** The `Cookie` request header a browser sends after the app set the session cookie to `token`. */
export const sessionCookieHeader = async (token: string) => (await sessionCookie(token)).split(";")[0]!;

export async function buildRequest(options: CallOptions): Promise<Request> {
  const url = new URL(options.path ?? "/", BASE);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const headers = new Headers(options.headers);
  if (options.token) {
    if (options.cookie) headers.set("Cookie", await sessionCookieHeader(options.token));
    else headers.set("Authorization", `Bearer ${options.token}`);
  }
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return new Request(url, { method: options.method ?? "GET", headers, body });
}

export async function call(route: RouteModule, options: CallOptions = {}): Promise<CallResult> {
  const request = await buildRequest(options);
  const args = { request, params: options.params ?? {}, context: {} };
  const handler = request.method === "GET" || request.method === "HEAD" ? route.loader : route.action;
  if (!handler) throw new Error(`route has no ${request.method === "GET" ? "loader" : "action"}`);
  let response: Response;
  try {
    response = await handler(args as never);
  } catch (thrown) {
    if (thrown instanceof Response) response = thrown;
    else throw thrown;
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
