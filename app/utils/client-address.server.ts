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
 * The network an address stands for in the failure budgets: an IPv4 address itself; an IPv6
 * address by its /64 (`2001:db8:1:2::/64`), since one host or home commonly holds a whole /64
 * and can pick a new address in it for every request.
 */
export function addressGroup(address: string): string {
  if (isIP(address) !== 6) return address;
  let text = address.toLowerCase().split("%")[0]!;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) as its two groups.
  const v4 = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  const prefix = groups.slice(0, 4).map((g) => parseInt(g || "0", 16).toString(16));
  return `${prefix.join(":")}::/64`;
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
