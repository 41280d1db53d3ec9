/**
 * GET /api/proxy (docs/decisions/009-image-proxy.md) against real local HTTP servers on 127.0.0.1. Only the
 * servers listed in IMAGE_PROXY_ALLOWED_HOSTS may be reached; every other loopback, private,
 * link-local, IPv6 loopback, IPv4-mapped and odd-notation address is refused before a connection is
 * made (the servers count what reaches them). Plus the schemes, redirects, content types, sizes and
 * the deadline, the headers of a served image, and the address classifier as a table.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as proxyRoute from "~/routes/api+/proxy";
import { classifyAddress, hostKey, parseAllowedHosts, sniffImageType } from "~/models/ops/image-proxy.server";
import { proxySlotsInUse } from "~/models/ops/image-proxy-slots.server";
import type { PublicUser } from "~/models/people/user.server";
import { resetEnv } from "~/utils/env.server";
import { makeUser, tokenFor } from "../helpers/factories";
import { expectError } from "../helpers/moc-flow";
import { buildRequest, call, sessionCookieHeader, type CallOptions } from "../helpers/request";

// A real 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
const WEBP_START = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x24, 0, 0, 0]), Buffer.from("WEBPVP8 ")]);
const AVIF_START = Buffer.concat([
  Buffer.from([0, 0, 0, 0x1c]),
  Buffer.from("ftypavif"),
  Buffer.from([0, 0, 0, 0]),
  Buffer.from("avifmif1miaf"),
]);
const MIB = 1024 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse, base: string) => void;
type TestServer = { base: string; port: number; hits: IncomingMessage[]; close: () => Promise<void> };

async function startServer(routes: Record<string, Handler>): Promise<TestServer> {
  const hits: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  let base = "";
  const server: Server = createServer((req, res) => {
    hits.push(req);
    const handler = routes[new URL(req.url!, "http://x").pathname];
    if (handler) handler(req, res, base);
    else res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    base,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const image =
  (type: string, bytes: Buffer): Handler =>
  (_req, res) =>
    res.writeHead(200, { "Content-Type": type, "Content-Length": bytes.length }).end(bytes);
const redirect =
  (to: (base: string) => string, status = 302): Handler =>
  (_req, res, base) =>
    res.writeHead(status, { Location: to(base) }).end();

let allowed: TestServer; // allowlisted
let other: TestServer; // allowlisted too, for redirects across hosts
let forbidden: TestServer; // listening on loopback, not allowlisted
let user: PublicUser;
let token: string;

beforeAll(async () => {
  forbidden = await startServer({ "/img.png": image("image/png", PNG) });
  other = await startServer({
    "/img.png": image("image/png", PNG),
    "/r3": redirect(() => `/img.png`),
  });
  const chain = (n: number, end: string) => redirect((base) => (n > 1 ? `${base}/chain${n - 1}` : `${base}${end}`));
  allowed = await startServer({
    "/img.png": image("image/png", PNG),
    "/img.gif": image("image/gif", GIF),
    "/img.png;charset": image("image/png; charset=binary", PNG),
    "/mislabelled.png": image("image/png", GIF),
    "/html": image("text/html; charset=utf-8", Buffer.from("<!doctype html><p>hello</p>")),
    "/svg": image(
      "image/svg+xml",
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    ),
    "/html-as-png": image("image/png", Buffer.from("<!doctype html><script>alert(1)</script>")),
    "/no-type": (_req, res) => res.writeHead(200).end(PNG),
    "/missing": (_req, res) => res.writeHead(404, { "Content-Type": "image/png" }).end(PNG),
    "/broken": (_req, res) => res.writeHead(500).end("oops"),
    "/gzip": (_req, res) => res.writeHead(200, { "Content-Type": "image/png", "Content-Encoding": "gzip" }).end(PNG),
    "/headers": (req, res) => image("image/png", PNG)(req, res, ""),
    // Redirects: 1 hop to another allowlisted host, then 1 more there = 2.
    "/r1": redirect(() => `${other.base}/r3`, 301),
    "/chain1": redirect((base) => `${base}/img.png`, 307),
    "/chain2": chain(2, "/img.png"),
    "/chain3": chain(3, "/img.png"),
    "/chain4": chain(4, "/img.png"),
    "/to-forbidden": redirect(() => `${forbidden.base}/img.png`),
    "/to-localhost": redirect(() => `http://localhost:${other.port}/img.png`),
    "/to-metadata": redirect(() => "http://169.254.169.254/latest/meta-data/"),
    "/to-decimal": redirect(() => `http://2130706433:${forbidden.port}/img.png`),
    "/to-ftp": redirect(() => "ftp://127.0.0.1/img.png"),
    "/to-file": redirect(() => "file:///etc/passwd"),
    "/no-location": (_req, res) => res.writeHead(302).end(),
    // Sizes
    "/big-declared": (_req, res) => {
      res.writeHead(200, { "Content-Type": "image/png", "Content-Length": String(10 * MIB + 1) });
      res.write(PNG);
      // Never finished: the proxy must give up on the header alone.
    },
    "/big-chunked": (_req, res) => {
      res.writeHead(200, { "Content-Type": "image/png" }); // no Content-Length: chunked
      res.write(PNG);
      const chunk = Buffer.alloc(256 * 1024);
      let sent = PNG.length;
      const pump = () => {
        while (sent <= 10 * MIB + 1) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    },
    "/exactly-10mib": (_req, res) => {
      const body = Buffer.alloc(10 * MIB);
      PNG.copy(body);
      res.writeHead(200, { "Content-Type": "image/png" }); // chunked, counted as it streams
      res.end(body);
    },
    // Time
    "/silent": () => {
      // Accepts the request and never answers.
    },
    "/stalls": (_req, res) => {
      res.writeHead(200, { "Content-Type": "image/png", "Content-Length": String(PNG.length * 2) });
      res.write(PNG); // then nothing more
    },
  });
  setAllowed([allowed, other]);
  user = await makeUser();
  token = await tokenFor(user);
});

afterAll(async () => {
  delete process.env.IMAGE_PROXY_ALLOWED_HOSTS;
  delete process.env.IMAGE_PROXY_TIMEOUT_MS;
  resetEnv();
  await Promise.all([allowed, other, forbidden].map((s) => s?.close()));
});

afterEach(() => {
  delete process.env.IMAGE_PROXY_TIMEOUT_MS;
  setAllowed([allowed, other]);
});

function setAllowed(servers: TestServer[], extra: string[] = []) {
  process.env.IMAGE_PROXY_ALLOWED_HOSTS = [...servers.map((s) => `127.0.0.1:${s.port}`), ...extra].join(",");
  resetEnv();
}

/** Calls the route; the body as bytes (images) and, when it is JSON, parsed. */
async function proxy(url: string | undefined, options: Partial<CallOptions> = {}) {
  const request = await buildRequest({
    path: "/api/proxy",
    query: url === undefined ? {} : { url },
    token,
    ...options,
  });
  const response = await proxyRoute.loader({ request, params: {}, context: {} } as never);
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, body, text: bytes.toString("utf8") };
}

/** A refusal: the status, the error body, no caching, and the listed servers never reached. */
async function refused(url: string, status: number, untouched: TestServer[] = [forbidden]) {
  const before = untouched.map((s) => s.hits.length);
  const res = await proxy(url);
  expectError(res as never, status);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  expect(untouched.map((s) => s.hits.length)).toEqual(before);
  return res;
}

describe("who may use it", () => {
  it("anonymous callers get 401 and nothing is fetched", async () => {
    const before = allowed.hits.length;
    const res = await proxy(`${allowed.base}/img.png`, { token: undefined });
    expectError(res as never, 401);
    expect(allowed.hits.length).toBe(before);
  });

  it("a signed-in caller with the session cookie is served", async () => {
    const res = await proxy(`${allowed.base}/img.png`, { cookie: true });
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
  });
});

describe("a served image", () => {
  it("is the upstream bytes with exactly the spec's headers", async () => {
    const res = await proxy(`${allowed.base}/img.png`);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(res.headers.get("Content-Length")).toBe(String(PNG.length));
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("cross-origin");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Set-Cookie")).toBeNull();
  });

  it("carries the type its bytes show; parameters on Content-Type are fine", async () => {
    const gif = await proxy(`${allowed.base}/img.gif`);
    expect([gif.status, gif.headers.get("Content-Type")]).toEqual([200, "image/gif"]);
    expect(gif.bytes.equals(GIF)).toBe(true);
    const mislabelled = await proxy(`${allowed.base}/mislabelled.png`);
    expect([mislabelled.status, mislabelled.headers.get("Content-Type")]).toEqual([200, "image/gif"]);
    expect((await proxy(`${allowed.base}/img.png;charset`)).status).toBe(200);
  });

  it("sends nothing of the caller upstream: no cookie, no authorization, a plain user agent", async () => {
    const before = allowed.hits.length;
    const res = await proxy(`${allowed.base}/headers`, {
      // The session as a bearer token, and cookies besides.
      headers: {
        Cookie: `theme=dark; ${await sessionCookieHeader(token)}`,
        "X-Forwarded-For": "10.0.0.1",
        Referer: "http://localhost:3000/x",
      },
    });
    expect(res.status).toBe(200);
    const seen = allowed.hits.slice(before);
    expect(seen).toHaveLength(1);
    const headers = seen[0]!.headers;
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(headers["x-forwarded-for"]).toBeUndefined();
    expect(headers.referer).toBeUndefined();
    expect(headers["user-agent"]).toBe("ChangeManagement-ImageProxy/1.0");
    expect(seen[0]!.method).toBe("GET");
  });

  it("follows up to 3 redirects within allowlisted hosts", async () => {
    for (const path of ["/r1", "/chain1", "/chain2", "/chain3"]) {
      const res = await proxy(`${allowed.base}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.bytes.equals(PNG)).toBe(true);
    }
  });

  it("a body of exactly 10 MiB passes", async () => {
    const res = await proxy(`${allowed.base}/exactly-10mib`);
    expect(res.status).toBe(200);
    expect(res.bytes.length).toBe(10 * MIB);
  });
});

describe("addresses that are refused (403), before any connection", () => {
  it("loopback by IP, by name and in IPv6, also on a port that is allowlisted for 127.0.0.1", async () => {
    await refused(`http://127.0.0.1:${forbidden.port}/img.png`, 403);
    await refused(`http://127.0.0.1/`, 403);
    // `localhost` names the same server as an allowlisted entry, but the allowlist is by host:port.
    await refused(`http://localhost:${allowed.port}/img.png`, 403, [allowed, forbidden]);
    await refused(`http://LocalHost:${forbidden.port}/img.png`, 403);
    await refused(`http://[::1]:${forbidden.port}/img.png`, 403);
    await refused(`http://[::ffff:127.0.0.1]:${forbidden.port}/img.png`, 403);
    await refused(`http://[::ffff:7f00:1]/`, 403);
    await refused(`http://[::127.0.0.1]/`, 403);
  });

  it("decimal, hex, octal and short IPv4 forms (normalised by the URL parser, then checked)", async () => {
    expect(new URL("http://2130706433/").hostname).toBe("127.0.0.1");
    expect(new URL("http://0x7f000001/").hostname).toBe("127.0.0.1");
    expect(new URL("http://0177.0.0.1/").hostname).toBe("127.0.0.1");
    for (const host of ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1"]) {
      await refused(`http://${host}/`, 403);
      await refused(`http://${host}:${forbidden.port}/img.png`, 403);
    }
  });

  it("private, link-local, metadata, CGNAT, unspecified and multicast ranges", async () => {
    for (const url of [
      "http://10.0.0.1/",
      "http://10.255.255.255:8080/x.png",
      "http://172.16.0.1/",
      "http://172.31.255.1/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.0.1/",
      "http://0.0.0.0/",
      `http://0.0.0.0:${forbidden.port}/img.png`,
      "http://0/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
      "http://[::]/",
      "http://[ff02::1]/",
      "http://[64:ff9b::7f00:1]/",
      "https://10.0.0.1/",
      "https://[::1]/",
    ]) {
      await refused(url, 403);
    }
  });

  it("redirects into refused space, also from an allowlisted server", async () => {
    await refused(`${allowed.base}/to-forbidden`, 403);
    await refused(`${allowed.base}/to-localhost`, 403, [other, forbidden]);
    await refused(`${allowed.base}/to-metadata`, 403);
    await refused(`${allowed.base}/to-decimal`, 403);
    await refused(`${allowed.base}/to-ftp`, 403);
    await refused(`${allowed.base}/to-file`, 403);
  });

  it("the allowlist is exact host:port pairs", () => {
    const hosts = parseAllowedHosts(" 127.0.0.1:8080, [::1]:9000 ,Intranet.Example:80,nope, :12, images.example.com ");
    expect([...hosts].sort()).toEqual(["127.0.0.1:8080", "[::1]:9000", "intranet.example:80"].sort());
    expect(hostKey("::1", 9000, "http:")).toBe("[::1]:9000");
    expect(hostKey("[::1]", "9000", "http:")).toBe("[::1]:9000");
    expect(hostKey("Intranet.Example", "", "http:")).toBe("intranet.example:80");
    expect(hostKey("images.example.com", "", "https:")).toBe("images.example.com:443");
  });
});

describe("requests that are refused", () => {
  it("400 for a missing, malformed or non-http(s) url", async () => {
    for (const url of [
      undefined,
      "",
      "not a url",
      "/relative/path.png",
      "ftp://127.0.0.1/img.png",
      "file:///etc/passwd",
      "data:image/png;base64,iVBORw0KGgo=",
      "javascript:alert(1)",
      "gopher://127.0.0.1:70/",
      `http://user:pass@127.0.0.1:${allowed.port}/img.png`,
      `http://x/${"a".repeat(5000)}`,
    ]) {
      const res = await proxy(url);
      expectError(res as never, 400);
    }
  });

  it("more than 3 redirects: 502", async () => {
    await refused(`${allowed.base}/chain4`, 502);
    await refused(`${allowed.base}/no-location`, 502);
  });

  it("415 for anything that is not a png, jpeg, gif, webp or avif image", async () => {
    for (const path of ["/html", "/svg", "/html-as-png", "/no-type"]) {
      const res = await proxy(`${allowed.base}${path}`);
      expectError(res as never, 415);
    }
  });

  it("502 for error answers, encoded bodies and unreachable servers", async () => {
    expectError((await proxy(`${allowed.base}/missing`)) as never, 502);
    expectError((await proxy(`${allowed.base}/broken`)) as never, 502);
    expectError((await proxy(`${allowed.base}/gzip`)) as never, 502);
    // Allowlisted, but nothing listens there any more.
    const gone = await startServer({});
    await gone.close();
    setAllowed([allowed, other, gone]);
    expectError((await proxy(`${gone.base}/img.png`)) as never, 502);
  });

  it("a name that does not resolve answers exactly as a name that resolves to a refused address (no DNS oracle)", async () => {
    const missing = await proxy("http://no-such-host.invalid/img.png");
    const internal = await proxy(`http://localhost:${forbidden.port}/img.png`);
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ status: 403, message: "The image host is not allowed or could not be found" });
    expect(internal.body).toEqual(missing.body);
    // Allowlisted or not, the same.
    setAllowed([allowed, other], ["no-such-host.invalid:80"]);
    expect((await proxy("http://no-such-host.invalid/img.png")).body).toEqual(missing.body);
  });

  it("502 for a body declared over 10 MiB; a streamed one is cut at 10 MiB", async () => {
    await refused(`${allowed.base}/big-declared`, 502);
    // The type was right, so the answer had started: the body stops short instead of completing.
    await expect(proxy(`${allowed.base}/big-chunked`)).rejects.toThrow();
  });

  it("504 when the server does not answer in time (IMAGE_PROXY_TIMEOUT_MS), or stalls mid-body", async () => {
    process.env.IMAGE_PROXY_TIMEOUT_MS = "300";
    resetEnv();
    await refused(`${allowed.base}/silent`, 504);
    await refused(`${allowed.base}/stalls`, 504);
  });
});

describe("concurrent fetches and streaming (IMAGE_PROXY_MAX_PER_USER, IMAGE_PROXY_MAX_CONCURRENT)", () => {
  let held: TestServer;
  const waiting: ServerResponse[] = [];
  beforeAll(async () => {
    // The first 1 MiB of a png at once, the rest only when the test says so.
    held = await startServer({
      "/held.png": (_req, res) => {
        res.writeHead(200, { "Content-Type": "image/png" });
        res.write(Buffer.concat([PNG, Buffer.alloc(MIB)]));
        waiting.push(res);
      },
    });
  });
  afterAll(async () => {
    delete process.env.IMAGE_PROXY_MAX_PER_USER;
    delete process.env.IMAGE_PROXY_MAX_CONCURRENT;
    resetEnv();
    await held.close();
  });
  const finishAll = () => {
    for (const res of waiting.splice(0)) res.end(Buffer.alloc(1024));
  };
  const open = async (who: string) => {
    const request = await buildRequest({ path: "/api/proxy", query: { url: `${held.base}/held.png` }, token: who });
    return proxyRoute.loader({ request, params: {}, context: {} } as never);
  };

  it("streams the image once its type is checked, holding a slot per user until the body is done", async () => {
    process.env.IMAGE_PROXY_MAX_PER_USER = "2";
    process.env.IMAGE_PROXY_MAX_CONCURRENT = "3";
    setAllowed([allowed, other, held]);
    const second = await makeUser();
    const third = await makeUser();
    const [secondToken, thirdToken] = [await tokenFor(second), await tokenFor(third)];

    // Answered while the upstream body is still open: streamed, not buffered whole.
    const a = await open(token);
    const b = await open(token);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.headers.get("Content-Length")).toBeNull();
    expect(proxySlotsInUse()).toEqual({ total: 2, perUser: { [user._id]: 2 } });

    // A third for the same user: 429, and the upstream is never asked.
    const hits = held.hits.length;
    const busy = await open(token);
    expect(busy.status).toBe(429);
    expect(busy.headers.get("Retry-After")).toBe("1");
    expect(await busy.json()).toEqual({
      status: 429,
      message: "Too many images are being fetched at once; try again in a moment",
    });
    expect(held.hits.length).toBe(hits);

    // Another user has slots of their own, up to the overall cap.
    const c = await open(secondToken);
    expect(c.status).toBe(200);
    expect((await open(thirdToken)).status).toBe(429);

    // A body the client stops reading gives its slot back.
    await a.body!.cancel();
    expect(proxySlotsInUse().perUser[user._id]).toBe(1);
    // Bodies that finish give theirs back too, and arrive whole.
    finishAll();
    const [bBytes, cBytes] = await Promise.all([b.arrayBuffer(), c.arrayBuffer()]);
    expect(bBytes.byteLength).toBe(PNG.length + MIB + 1024);
    expect(Buffer.from(cBytes).subarray(0, PNG.length).equals(PNG)).toBe(true);
    expect(proxySlotsInUse()).toEqual({ total: 0, perUser: {} });
    // Refusals hold nothing either.
    await refused(`http://127.0.0.1:${forbidden.port}/img.png`, 403);
    expect(proxySlotsInUse().total).toBe(0);
  });
});

describe("the address classifier", () => {
  it.each([
    ["8.8.8.8", true, "unicast"],
    ["1.1.1.1", true, "unicast"],
    ["93.184.216.34", true, "unicast"],
    ["2606:4700:4700::1111", true, "unicast"],
    ["::ffff:8.8.8.8", true, "unicast"],
    ["127.0.0.1", false, "loopback"],
    ["127.255.255.254", false, "loopback"],
    ["10.1.2.3", false, "private"],
    ["172.16.0.1", false, "private"],
    ["172.31.255.255", false, "private"],
    ["192.168.0.1", false, "private"],
    ["169.254.169.254", false, "linkLocal"],
    ["100.64.0.1", false, "carrierGradeNat"],
    ["0.0.0.0", false, "unspecified"],
    ["0.1.2.3", false, "unspecified"],
    ["224.0.0.1", false, "multicast"],
    ["239.255.255.250", false, "multicast"],
    ["255.255.255.255", false, "broadcast"],
    ["192.0.2.1", false, "reserved"],
    ["198.18.0.1", false, "reserved"],
    ["240.0.0.1", false, "reserved"],
    ["::1", false, "loopback"],
    ["::", false, "unspecified"],
    ["fe80::1", false, "linkLocal"],
    ["fc00::1", false, "uniqueLocal"],
    ["fd12:3456::1", false, "uniqueLocal"],
    ["ff02::1", false, "multicast"],
    ["::ffff:127.0.0.1", false, "ipv4Mapped loopback"],
    ["::ffff:10.0.0.1", false, "ipv4Mapped private"],
    ["::ffff:169.254.169.254", false, "ipv4Mapped linkLocal"],
    ["::127.0.0.1", false, "ipv4Compatible"],
    ["::8.8.8.8", false, "ipv4Compatible"],
    ["64:ff9b::7f00:1", false, "rfc6052"],
    ["2002:7f00:1::", false, "6to4"],
    ["2001::1", false, "teredo"],
    ["2001:db8::1", false, "reserved"],
    ["fec0::1", false, "deprecatedSiteLocal"],
    ["fe80::1%eth0", false, "linkLocal"],
    ["::ffff:7f00:1", false, "ipv4Mapped loopback"],
    ["not-an-ip", false, "invalid"],
    ["127.1", false, "invalid"],
  ])("%s: allowed %s (%s)", (address, allowedResult, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: allowedResult, range });
  });

  it("recognises the five image types by their first bytes, and nothing else", () => {
    expect(sniffImageType(PNG)).toBe("image/png");
    expect(sniffImageType(GIF)).toBe("image/gif");
    expect(sniffImageType(JPEG_START)).toBe("image/jpeg");
    expect(sniffImageType(WEBP_START)).toBe("image/webp");
    expect(sniffImageType(AVIF_START)).toBe("image/avif");
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImageType(Buffer.from("<!doctype html>"))).toBeNull();
    expect(sniffImageType(Buffer.from([0x89, 0x50]))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
    // An ISO-BMFF file that is not AVIF (an mp4).
    expect(
      sniffImageType(Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from("ftypisom"), Buffer.alloc(8)])),
    ).toBeNull();
  });
});

it("an anonymous caller gets the standard 401 error body", async () => {
  const res = await call(proxyRoute, { path: "/api/proxy", query: { url: "http://8.8.8.8/x.png" } });
  expectError(res, 401);
});
