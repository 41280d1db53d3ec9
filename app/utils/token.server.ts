/**
 * The session token: a compact JWT (HS256) signed with SESSION_SECRET. A comma-separated secret
 * list allows rotation: the first key signs, every key verifies. See docs/decisions/001.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "./env.server";

export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

export const tokenPayloadSchema = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
  department: z.string(),
  access: z.string(),
  position: z.string().nullable(),
  sid: z.string().uuid(),
  iat: z.number().int(),
  nbf: z.number().int(),
  exp: z.number().int(),
});
export type TokenPayload = z.infer<typeof tokenPayloadSchema>;

/** The three 401 messages of the contract (docs/api-contract.md), verbatim. */
export const TOKEN_EXPIRED = "Token has expired";
export const TOKEN_NOT_YET_VALID = "Token is not yet valid";
export const TOKEN_INVALID = "Token claim validation failed";

export type TokenResult = { ok: true; payload: TokenPayload } | { ok: false; message: string };

/** The SESSION_SECRET keys: the first signs, every one verifies (tokens and cookies alike). */
export function sessionSecrets(): string[] {
  const secret = env().SESSION_SECRET;
  if (!secret) throw new Error("SESSION_SECRET is not set");
  return secret
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
}

const b64 = (input: Buffer | string) => Buffer.from(input).toString("base64url");
const HEADER = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));

function mac(key: string, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

export function signToken(claims: Omit<TokenPayload, "iat" | "nbf" | "exp">, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const payload: TokenPayload = { ...claims, iat, nbf: iat, exp: iat + SESSION_TTL_SECONDS };
  const body = `${HEADER}.${b64(JSON.stringify(payload))}`;
  return `${body}.${b64(mac(sessionSecrets()[0]!, body))}`;
}

function isCanonicalBase64url(part: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, "base64url").toString("base64url") === part;
}

export function verifyToken(token: string | null | undefined, now = Date.now()): TokenResult {
  const invalid = { ok: false, message: TOKEN_INVALID } as const;
  if (!token) return invalid;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return invalid;
  // Strict base64url: Node's decoder skips `=`, stray characters and a partial last group, so
  // "<signature>=" would decode to the same bytes. Only the canonical spelling is accepted.
  if (!parts.every(isCanonicalBase64url)) return invalid;
  const body = `${parts[0]}.${parts[1]}`;
  const signature = Buffer.from(parts[2]!, "base64url");
  const signed = sessionSecrets().some((key) => {
    const expected = mac(key, body);
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  });
  if (!signed) return invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
  } catch {
    return invalid;
  }
  const parsed = tokenPayloadSchema.safeParse(decoded);
  if (!parsed.success) return invalid;
  const seconds = Math.floor(now / 1000);
  if (parsed.data.exp <= seconds) return { ok: false, message: TOKEN_EXPIRED };
  if (parsed.data.nbf > seconds) return { ok: false, message: TOKEN_NOT_YET_VALID };
  return { ok: true, payload: parsed.data };
}
