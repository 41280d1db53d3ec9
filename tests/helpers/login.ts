/**
 * Posts to the /login action the way a browser form or an API client does. A browser failure is
 * answered with `data(...)` (the page re-renders with the error), not a Response, so both shapes
 * are normalised here.
 */
import * as login from "~/routes/_auth+/login";
import { expectNoSecrets } from "./api";
import { buildRequest, type CallResult } from "./request";

export type LoginResult = {
  status: number;
  headers: Headers;
  body: CallResult["body"];
  location: string | null;
};

type DataWithInit = { type: "DataWithResponseInit"; data: unknown; init: ResponseInit | null };

export async function postLogin(
  fields: Record<string, string>,
  options: { json?: boolean; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<LoginResult> {
  const request = await buildRequest({
    method: "POST",
    path: "/login",
    body: options.rawBody ?? new URLSearchParams(fields).toString(),
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      ...(options.json ? { Accept: "application/json" } : {}),
      ...options.headers,
    },
  });
  const result: unknown = await login.action({ request, params: {}, context: {} });
  const secrets = [fields.password ?? ""].filter((p) => p.length >= 6);
  if (result instanceof Response) {
    const text = await result.text();
    expectNoSecrets(text, secrets);
    return {
      status: result.status,
      headers: result.headers,
      body: text ? JSON.parse(text) : undefined,
      location: result.headers.get("Location"),
    };
  }
  const { data, init } = result as DataWithInit;
  expectNoSecrets(JSON.stringify(data), secrets);
  const headers = new Headers(init?.headers);
  return { status: init?.status ?? 200, headers, body: data, location: headers.get("Location") };
}

/** Can this email and password sign in (as an API client)? */
export async function signsIn(email: string, password: string): Promise<boolean> {
  return (await postLogin({ email, password }, { json: true })).status === 200;
}
