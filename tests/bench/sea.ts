/**
 * `npm run bench -- --only sea`: pages over a ship's satellite link
 * (docs/decisions/032-pages-at-sea.md). Chromium driven by Playwright, the network emulated through
 * the DevTools protocol (`Network.emulateNetworkConditions`: 256 kbit/s down, 64 kbit/s up, 700 ms
 * latency), signed in as the admin (the step form and its submission as the MOC's HSEQ user).
 * For each page: a cold load (fresh browser profile) and a warm one (the same profile again) with
 * JavaScript on, a cold load with JavaScript off; then client-side navigations between the pages
 * and one step form submitted. Bytes on the wire are the sum of `Network.loadingFinished`'s
 * `encodedDataLength` (headers and compressed bodies) up to the load event; time is from the
 * navigation's start to the load event. Last, `GET /api/newmoc` of all 10,000 MOCs with
 * `Accept-Encoding: identity`, `gzip` and `br`, counted as raw bytes on the socket.
 * And "a ship's day replayed" (docs/decisions/045-offline-shell-and-drafts.md): 20 chat messages
 * written with the link down wait as drafts; the link comes back at 256 kbit/s and 700 ms; the time
 * until all are applied, the bytes sent and received, and the duplicates stored (must be 0).
 * `--only sea:ship` runs that scenario alone.
 */
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from "@playwright/test";
import { existsSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type postgres from "postgres";
import { signIn } from "./server";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** VSAT: 256 kbit/s down, 64 kbit/s up, 700 ms latency (bytes per second for CDP). */
const LINK = { offline: false, latency: 700, downloadThroughput: (256 * 1000) / 8, uploadThroughput: (64 * 1000) / 8 };

/** `paintMs`: the first contentful paint of a full load, when the page is drawn and, its forms being plain HTML, usable. */
export type SeaRow = {
  scenario: string;
  kib: number;
  ms: number;
  paintMs?: number;
  target: string;
  pass: boolean | null;
};

type Meter = { page: Page; cdp: CDPSession; bytes: () => number; reset: () => void; inFlight: () => number };

async function meter(context: BrowserContext): Promise<Meter> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", LINK);
  let total = 0;
  const open = new Set<string>();
  cdp.on("Network.requestWillBeSent", (event: { requestId: string }) => open.add(event.requestId));
  cdp.on("Network.loadingFailed", (event: { requestId: string }) => open.delete(event.requestId));
  cdp.on("Network.loadingFinished", (event: { requestId: string; encodedDataLength: number }) => {
    open.delete(event.requestId);
    total += event.encodedDataLength;
  });
  return { page, cdp, bytes: () => total, reset: () => (total = 0), inFlight: () => open.size };
}

/** A full load of `url`: bytes and ms to the load event. */
async function load(m: Meter, url: string): Promise<{ kib: number; ms: number; paintMs?: number }> {
  m.reset();
  const started = performance.now();
  const response = await m.page.goto(url, { waitUntil: "load", timeout: 120_000 });
  const ms = performance.now() - started;
  if (!response || response.status() >= 400) throw new Error(`${url}: ${response?.status()}`);
  // loadingFinished for the last resources can arrive just after the load event.
  await m.page.waitForTimeout(50);
  // The paint is timed from the navigation's start in the page, as the load is from here.
  const paint = await m.page.evaluate(
    () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
  );
  return { kib: m.bytes() / 1024, ms, ...(paint === null ? {} : { paintMs: paint }) };
}

/**
 * A person reads a page before the next click: time for the page's idle work (the code of the
 * pages it links to, app/components/prefetch-modules.tsx) to cross the link, as it would.
 */
async function read(m: Meter): Promise<void> {
  await m.page.waitForTimeout(3000);
  // Then until nothing has been in flight for a second (at most a minute).
  const until = performance.now() + 60_000;
  let quietSince = performance.now();
  while (performance.now() < until && performance.now() - quietSince < 1000) {
    await m.page.waitForTimeout(100);
    if (m.inFlight() > 0) quietSince = performance.now();
  }
}

/** A client-side navigation through Remix's router: bytes and ms until the router is idle again. */
async function navigate(m: Meter, path: string): Promise<{ kib: number; ms: number }> {
  m.reset();
  const started = performance.now();
  await m.page.evaluate(async (to) => {
    type Router = {
      navigate: (to: string) => Promise<void>;
      state: { navigation: { state: string }; location: { pathname: string } };
      subscribe: (fn: (state: Router["state"]) => void) => () => void;
    };
    const router = (window as unknown as { __remixRouter: Router }).__remixRouter;
    await router.navigate(to);
    if (router.state.navigation.state !== "idle") {
      await new Promise<void>((resolve) => {
        const stop = router.subscribe((state) => {
          if (state.navigation.state === "idle") {
            stop();
            resolve();
          }
        });
      });
    }
  }, path);
  const ms = performance.now() - started;
  const pathname = new URL(m.page.url()).pathname;
  if (pathname !== path.split("?")[0]) throw new Error(`navigation to ${path} ended at ${pathname}`);
  await m.page.waitForTimeout(50);
  return { kib: m.bytes() / 1024, ms };
}

/**
 * A signed-in browser profile. The service worker is blocked unless `serviceWorker` is set: its own
 * requests are not slowed by the page's emulated link (a DevTools session emulates the page's
 * network, not the worker's), so with it a warm load or a navigation it answers would be timed at
 * loopback speed. The page rows are a first visit's, before the worker is installed; the ship's day,
 * which is about the worker and the drafts, runs with it.
 */
async function signedInContext(
  browser: Browser,
  base: string,
  cookie: string,
  javaScriptEnabled: boolean,
  serviceWorker = false,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled,
    viewport: { width: 1280, height: 900 },
    serviceWorkers: serviceWorker ? "allow" : "block",
  });
  const [name, ...value] = cookie.split("=");
  await context.addCookies([{ name: name!, value: value.join("="), url: base }]);
  return context;
}

/** Raw bytes of one response on the socket (headers excluded), as `Accept-Encoding` asks. */
function wireBytes(
  url: string,
  headers: Record<string, string>,
): Promise<{ bytes: number; ms: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(url, { headers }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () =>
        resolve({
          bytes,
          ms: performance.now() - started,
          encoding: String(res.headers["content-encoding"] ?? "identity"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** The service worker's precache list (build/client/sw.js) and its bytes as served (brotli where built). */
function precacheBytes(dir: string): { files: number; bytes: number } {
  const worker = readFileSync(path.join(dir, "sw.js"), "utf8");
  const urls = [...worker.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]!);
  let bytes = 0;
  for (const url of urls) {
    const file = path.join(dir, url);
    bytes += existsSync(`${file}.br`) ? statSync(`${file}.br`).size : statSync(file).size;
  }
  return { files: urls.length, bytes };
}

/**
 * A ship's day replayed: the record page loaded (and the service worker installed, its precache
 * counted as a row of its own), the link cut, 20 chat messages written, the link back. Time from
 * the link's return until the drafts list is empty (every draft answered), bytes up (the posts'
 * bodies and headers) and down (the replies, and the page's chat poll meanwhile), and the messages
 * stored, counted in the database: applied = 20, duplicates = 0.
 */
async function shipsDay(browser: Browser, base: string, cookie: string, mocId: string, sql: postgres.Sql) {
  const rows: SeaRow[] = [];
  const context = await signedInContext(browser, base, cookie, true, true);
  const m = await meter(context);
  let up = 0;
  // Bytes down by path, to tell what the replay costs from what the page does meanwhile (its chat poll).
  const paths = new Map<string, string>();
  const byPath = new Map<string, number>();
  m.cdp.on("Network.loadingFinished", (event: { requestId: string; encodedDataLength: number }) => {
    const path = paths.get(event.requestId) ?? "?";
    byPath.set(path, (byPath.get(path) ?? 0) + event.encodedDataLength);
  });
  m.cdp.on(
    "Network.requestWillBeSent",
    (event: {
      requestId: string;
      request: { url: string; method: string; postData?: string; headers: Record<string, string> };
    }) => {
      paths.set(
        event.requestId,
        `${event.request.method} ${new URL(event.request.url).pathname.replace(mocId, ":id")}`,
      );
      if (event.request.method !== "POST") return;
      const headers = Object.entries(event.request.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
      up += Buffer.byteLength(event.request.postData ?? "") + headers;
    },
  );
  await load(m, `${base}/mocs/${mocId}`);
  await m.page.locator("html[data-drafts=ready]").waitFor({ state: "attached", timeout: 120_000 });
  m.reset();
  const installing = performance.now();
  await m.page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await read(m);
  // The worker's own downloads are not seen from the page's DevTools session: its precache list is
  // summed from the build instead, each file as the server sends it (the .br copy when there is one).
  const precache = precacheBytes("build/client");
  rows.push({
    scenario: `service worker installed after the first page: ${precache.files} files precached, once per deploy (bytes: the build's precache list as served)`,
    kib: precache.bytes / 1024,
    ms: performance.now() - installing,
    target: "report",
    pass: null,
  });

  await m.cdp.send("Network.emulateNetworkConditions", { ...LINK, offline: true });
  const tag = `Ship's day ${Date.now()}`;
  const panel = m.page.locator(".drafts-panel");
  const chat = m.page.getByRole("region", { name: "Chat", exact: true });
  for (let i = 1; i <= 20; i++) {
    await chat.getByLabel("Message", { exact: true }).fill(`${tag} #${i}`);
    await chat.getByRole("button", { name: "Send", exact: true }).click();
    await panel.filter({ hasText: `Waiting to send (${i})` }).waitFor({ timeout: 10_000 });
  }
  m.reset();
  up = 0;
  byPath.clear();
  const started = performance.now();
  await m.cdp.send("Network.emulateNetworkConditions", LINK);
  await panel.waitFor({ state: "hidden", timeout: 300_000 });
  const ms = performance.now() - started;
  const [stored] = await sql<{ applied: number; duplicates: number }[]>`
    select count(distinct message)::int as applied, (count(*) - count(distinct message))::int as duplicates
    from chat_messages where message like ${`${tag} #%`}`;
  const { applied, duplicates } = stored!;
  const heaviest = [...byPath].sort((a, b) => b[1] - a[1]).slice(0, 6);
  console.log(
    `[bench] sea: ship's day, down by request: ${heaviest.map(([path, bytes]) => `${path} ${(bytes / 1024).toFixed(1)} KiB`).join(", ")}`,
  );
  console.log(
    `[bench] sea: ship's day: ${applied} of 20 applied, ${duplicates} duplicates, ${ms.toFixed(0)} ms, ${(up / 1024).toFixed(1)} KiB up, ${(m.bytes() / 1024).toFixed(1)} KiB down`,
  );
  rows.push({
    scenario: `a ship's day replayed: 20 chat messages written offline, sent when the link is back (${(up / 1024).toFixed(1)} KiB up, ${(m.bytes() / 1024).toFixed(1)} KiB down; ${applied} applied, ${duplicates} duplicates)`,
    kib: (up + m.bytes()) / 1024,
    ms,
    target: "all 20 applied, 0 duplicates",
    pass: applied === 20 && duplicates === 0,
  });
  await context.close();
  return rows;
}

export async function seaBench(
  base: string,
  sql: postgres.Sql,
  people: { admin: string; password: string },
  options: { shipOnly?: boolean } = {},
): Promise<SeaRow[]> {
  const rows: SeaRow[] = [];
  const log = (message: string) => console.log(`[bench] sea: ${message}`);
  const [moc] = await sql<{ id: string; hseq: string }[]>`
    select m.id, u.email as hseq from mocs m join users u on u.id = m.hseq_id
    where m.status = 'c' and not m.is_deleted and not m.completed order by m.serial_count limit 1`;
  const [pcr] = await sql<{ id: string }[]>`select id from pcrs order by serial_count limit 1`;
  if (!moc || !pcr) throw new Error("the seeded data has no MOC at c or no PCR");
  const pages = [
    { name: "dashboard `/`", path: "/", jsMs: 5000, offMs: 2000 },
    { name: "MOC list `/mocs`", path: "/mocs", jsMs: 5000, offMs: 2000 },
    { name: "MOC record `/mocs/:id`", path: `/mocs/${moc.id}`, jsMs: 5000, offMs: 2000 },
    { name: "step form `/mocs/:id/hseq`", path: `/mocs/${moc.id}/hseq`, jsMs: 5000, offMs: 2000, as: "hseq" },
    { name: "PCR `/pcrs/:id`", path: `/pcrs/${pcr.id}`, jsMs: 5000, offMs: 2000 },
    { name: "Insight `/insights`", path: "/insights", jsMs: 7000, offMs: 3000 },
  ] as const;
  const admin = await signIn(base, people.admin, people.password);
  const hseq = await signIn(base, moc.hseq, people.password);
  const cookieFor = (as?: string) => (as === "hseq" ? hseq.cookie : admin.cookie);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  if (options.shipOnly) {
    try {
      return await shipsDay(browser, base, hseq.cookie, moc.id, sql);
    } finally {
      await browser.close();
    }
  }
  try {
    // Each page: cold and warm with JavaScript, cold without.
    for (const p of pages) {
      const on = await signedInContext(browser, base, cookieFor("as" in p ? p.as : undefined), true);
      const m = await meter(on);
      const cold = await load(m, base + p.path);
      await read(m);
      const warm = await load(m, base + p.path);
      await on.close();
      const off = await signedInContext(browser, base, cookieFor("as" in p ? p.as : undefined), false);
      const offCold = await load(await meter(off), base + p.path);
      await off.close();
      log(
        `${p.name}: cold ${cold.kib.toFixed(1)} KiB ${cold.ms.toFixed(0)} ms (first paint ${cold.paintMs?.toFixed(0)} ms); warm ${warm.kib.toFixed(1)} KiB ${warm.ms.toFixed(0)} ms; JS off ${offCold.kib.toFixed(1)} KiB ${offCold.ms.toFixed(0)} ms`,
      );
      rows.push({
        scenario: `${p.name}, JS on, cold`,
        ...cold,
        target: `<= ${p.jsMs / 1000} s, <= 120 KiB`,
        pass: cold.ms <= p.jsMs && cold.kib <= 120,
      });
      rows.push({ scenario: `${p.name}, JS on, warm`, ...warm, target: "report", pass: null });
      rows.push({
        scenario: `${p.name}, JS off, cold`,
        kib: offCold.kib,
        ms: offCold.ms,
        target: `<= ${p.offMs / 1000} s`,
        pass: offCold.ms <= p.offMs,
      });
    }

    // Client-side navigations from a cold profile's first page, each after the page was read (the
    // code of the pages it links to comes meanwhile), each along a link the page before shows, as a
    // person clicks: the PCR record through the PCR list in the header. Remix has then discovered
    // the address (it asks the server about the addresses of the links a page renders).
    const short = (path: string) => path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, ":id");
    {
      const context = await signedInContext(browser, base, admin.cookie, true);
      const m = await meter(context);
      await load(m, `${base}/`);
      for (const next of ["/mocs", `/mocs/${moc.id}`, "/pcrs", "a PCR the list shows", "/insights", "/"]) {
        await read(m);
        const from = new URL(m.page.url()).pathname;
        // The first PCR the list links to (the seeded one may be on a later page of the list).
        const to = next.startsWith("/")
          ? next
          : await m.page
              .locator('main a[href^="/pcrs/"]')
              .evaluateAll((links) =>
                links
                  .map((link) => link.getAttribute("href") ?? "")
                  .find((href) => /^\/pcrs\/[0-9a-f-]{36}$/.test(href)),
              );
        if (!to) throw new Error("the PCR list links to no PCR");
        const nav = await navigate(m, to);
        log(`navigation ${from} -> ${to}: ${nav.kib.toFixed(1)} KiB ${nav.ms.toFixed(0)} ms`);
        rows.push({
          scenario: `client-side navigation ${short(from)} -> ${short(to)}`,
          ...nav,
          target: "<= 1.5 s",
          pass: nav.ms <= 1500,
        });
      }
      await context.close();
    }
    // And one to an address the page does not link to (the MOC record shows no PCR): the router
    // first asks the server which route it is (Remix's route discovery, one more round trip), then
    // for its data.
    {
      const context = await signedInContext(browser, base, admin.cookie, true);
      const m = await meter(context);
      await load(m, `${base}/mocs/${moc.id}`);
      await read(m);
      const nav = await navigate(m, `/pcrs/${pcr.id}`);
      log(`navigation without a link /mocs/:id -> /pcrs/:id: ${nav.kib.toFixed(1)} KiB ${nav.ms.toFixed(0)} ms`);
      rows.push({
        scenario: "client-side navigation with no link between the pages: /mocs/:id -> /pcrs/:id",
        ...nav,
        target: "report",
        pass: null,
      });
      await context.close();
    }

    // One step submitted: the HSEQ review, answered yes, and the record shown again.
    {
      const context = await signedInContext(browser, base, hseq.cookie, true);
      const m = await meter(context);
      await load(m, `${base}/mocs/${moc.id}/hseq`);
      await read(m);
      const form = m.page.locator("form#hseq-step");
      for (const group of await form.getByRole("group").all()) {
        const yes = group.getByRole("radio", { name: "Yes" });
        if (await yes.count()) await yes.check();
      }
      m.reset();
      const started = performance.now();
      await form.getByRole("button", { name: "Submit HSEQ review" }).click();
      await m.page.waitForURL(`${base}/mocs/${moc.id}`, { timeout: 60_000 });
      await m.page.getByText(/passed HSEQ review/).waitFor({ timeout: 60_000 });
      const ms = performance.now() - started;
      const kib = m.bytes() / 1024;
      log(`step submitted: ${kib.toFixed(1)} KiB ${ms.toFixed(0)} ms`);
      rows.push({
        scenario: "HSEQ step submitted, record shown again (JS on)",
        kib,
        ms,
        target: "<= 2.5 s",
        pass: ms <= 2500,
      });
      await context.close();
    }

    rows.push(...(await shipsDay(browser, base, hseq.cookie, moc.id, sql)));
  } finally {
    await browser.close();
  }

  // The admin's whole list, as each encoding crosses the wire (loopback, no emulation).
  for (const encoding of ["identity", "gzip", "br"]) {
    const result = await wireBytes(`${base}/api/newmoc`, {
      Authorization: `Bearer ${admin.token}`,
      "Accept-Encoding": encoding,
    });
    log(
      `GET /api/newmoc (10,000 MOCs) ${encoding}: ${(result.bytes / 1e6).toFixed(2)} MB in ${result.ms.toFixed(0)} ms`,
    );
    rows.push({
      scenario: `GET /api/newmoc, 10,000 MOCs, Accept-Encoding: ${encoding} (Content-Encoding: ${result.encoding})`,
      kib: result.bytes / 1024,
      ms: result.ms,
      target: encoding === "identity" ? "reference (65.8 MB before)" : "report",
      pass: null,
    });
  }
  return rows;
}

/** The rows as the Markdown table docs/performance.md holds. */
export function seaTable(rows: SeaRow[]): string {
  const lines = [
    "| scenario | on the wire | first paint | time | target | result |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
  for (const row of rows) {
    const size = row.kib >= 1024 ? `${(row.kib / 1024).toFixed(2)} MiB` : `${row.kib.toFixed(1)} KiB`;
    const paint = row.paintMs === undefined ? "" : seconds(row.paintMs);
    lines.push(
      `| ${row.scenario} | ${size} | ${paint} | ${seconds(row.ms)} | ${row.target} | ${row.pass === null ? "" : row.pass ? "pass" : "MISSED"} |`,
    );
  }
  return lines.join("\n");
}
