/**
 * The client's address, for the sign-in failure budgets (docs/security.md).
 *
 * The HTTP server (app/server/main.ts) works it out once per request: the socket's peer address,
 * or, when `TRUST_PROXY` names the proxies in front of the app, the address those proxies put in
 * `X-Forwarded-For` (Express's `trust proxy` rules). It hands the address to the routes in a
 * request header that carries this process's random key, so a header a client sends itself is
 * never believed: without the key (another process, the dev server, a forged header) the address
 * is `unknown`, and only the per-account budgets apply.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";

export const CLIENT_ADDRESS_HEADER = "x-cm-client-address";
export const UNKNOWN_CLIENT = "unknown";

// On globalThis: main.ts and the Remix build each load their own copy of this module.
const holder = globalThis as typeof globalThis & { __cmClientAddressKey?: string };
const key = () => (holder.__cmClientAddressKey ??= randomBytes(16).toString("hex"));

/** The header value that vouches for `address` (what main.ts sets on every request). */
export function clientAddressHeader(address: string | undefined): string {
  return `${key()} ${address && isIP(address) ? address : UNKNOWN_CLIENT}`;
}

/** The address main.ts vouched for, or `unknown`. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) reads as IPv4. */
export function clientAddress(request: Request): string {
  const value = request.headers.get(CLIENT_ADDRESS_HEADER);
  if (!value) return UNKNOWN_CLIENT;
  const [given, address] = value.split(" ");
  if (given !== key() || !address) return UNKNOWN_CLIENT;
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
}

/**
 * `TRUST_PROXY` as Express's `trust proxy` setting: unset trusts no proxy (the socket's address is
 * the client's); a number trusts that many hops; otherwise a comma-separated list of addresses,
 * CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`.
 */
export function trustProxySetting(value: string | undefined): number | string[] | false {
  if (!value) return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Why a `TRUST_PROXY` value is unusable, or null. */
export function trustProxyProblem(value: string | undefined): string | null {
  if (!value || /^\d+$/.test(value)) return null;
  for (const entry of value.split(",").map((e) => e.trim())) {
    if (!entry) continue;
    if (["loopback", "linklocal", "uniquelocal"].includes(entry)) continue;
    const [address, bits, extra] = entry.split("/");
    const kind = isIP(address ?? "");
    const maxBits = kind === 6 ? 128 : 32;
    if (kind && extra === undefined && (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)))
      continue;
    return `TRUST_PROXY: "${entry}" is not a hop count, an address, a CIDR range, loopback, linklocal or uniquelocal`;
  }
  return null;
}
