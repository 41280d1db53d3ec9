/**
 * A page's loader or action called as Remix calls it, signed in with the session cookie, its answer
 * read whatever its form: a Response (a redirect, a refusal thrown), `data(...)` with a status, or
 * plain data (200). And a form post to a page, as the browser sends it without JavaScript.
 */
import type { PublicUser } from "~/models/people/user.server";
import { tokenFor } from "./factories";
import { BASE, buildRequest, type CallOptions } from "./request";

export type PageModule = { loader?: (args: never) => unknown; action?: (args: never) => unknown };
export type PageResult = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function page(route: PageModule, who: PublicUser, options: CallOptions): Promise<PageResult> {
  const request = await buildRequest({ ...options, token: await tokenFor(who), cookie: true });
  const handler = request.method === "GET" ? route.loader! : route.action!;
  let answer: unknown;
  try {
    answer = await handler({ request, params: options.params ?? {}, context: {} } as never);
  } catch (thrown) {
    // A refusal is thrown: a Response, or `data(...)` with its status (the 403 page).
    if (!(thrown instanceof Response) && (thrown as { type?: string })?.type !== "DataWithResponseInit") throw thrown;
    answer = thrown;
  }
  if (answer instanceof Response) return { status: answer.status, body: await answer.text() };
  const withInit = answer as { type?: string; data?: unknown; init?: ResponseInit | null };
  if (withInit?.type === "DataWithResponseInit") return { status: withInit.init?.status ?? 200, body: withInit.data };
  return { status: 200, body: answer };
}

/** A form post to a page, as the browser sends it without JavaScript. */
export const postForm = (
  route: PageModule,
  who: PublicUser,
  path: string,
  form: Record<string, string>,
  params: Record<string, string> = {},
) =>
  page(route, who, {
    method: "POST",
    path,
    params,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    body: new URLSearchParams(form).toString(),
  });
