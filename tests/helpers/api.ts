/**
 * `call` plus the checks every API answer must pass: no password, hash or argon2 string in the raw
 * text (docs/api-contract.md), no echo of a password the request sent, and `Cache-Control:
 * no-store` on everything under /api.
 */
import { expect } from "vitest";
import { PASSWORD } from "./factories";
import { call, type CallOptions, type CallResult } from "./request";

type RouteModule = Parameters<typeof call>[0];

// A hash key with any value, or a `password` key holding a string. (A sign-in form's field errors,
// `"password": ["Password is required"]`, name the field without carrying a secret.)
const SECRET_KEYS = /"(passwordHash|password_hash)"\s*:|"password"\s*:\s*"/;

export function expectNoSecrets(text: string, plaintexts: string[] = []): void {
  expect(text).not.toMatch(SECRET_KEYS);
  expect(text).not.toContain("$argon2");
  for (const secret of [PASSWORD, ...plaintexts]) expect(text).not.toContain(secret);
}

/** Password values the request carries, which the answer must never repeat. */
function sentPasswords(options: CallOptions): string[] {
  const out: string[] = [];
  const body = options.body as Record<string, unknown> | undefined;
  if (body && typeof body === "object") {
    for (const key of ["password", "currentPassword"]) {
      const value = body[key];
      if (typeof value === "string" && value.length >= 6) out.push(value);
    }
  }
  const queryPassword = options.query?.password;
  if (queryPassword && queryPassword.length >= 6) out.push(queryPassword);
  return out;
}

export async function api(route: RouteModule, options: CallOptions): Promise<CallResult> {
  const res = await call(route, options);
  expectNoSecrets(res.text, sentPasswords(options));
  if (options.path?.startsWith("/api/")) expect(res.headers.get("Cache-Control")).toBe("no-store");
  return res;
}
