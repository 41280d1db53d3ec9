/**
 * Pages at sea (docs/decisions/032-pages-at-sea.md) on the real production server: compression
 * negotiated by Accept-Encoding on every kind of answer, 304 for an unchanged page, and layouts
 * that never scroll sideways at 375 px and keep the header on one row at 1280 px for every role.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import http from "node:http";
import zlib from "node:zlib";
import { ADMIN } from "./fixtures";
import { expect, test, type Person } from "./moc-fixtures";
import { BASE_URL } from "./playwright.config";
import { stepBody } from "../helpers/moc";

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** A GET over a plain socket: the headers and the bytes exactly as sent (never decompressed). */
function rawGet(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(`${BASE_URL}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

function decode(raw: Raw): string {
  const encoding = raw.headers["content-encoding"];
  if (encoding === "br") return zlib.brotliDecompressSync(raw.body).toString("utf8");
  if (encoding === "gzip") return zlib.gunzipSync(raw.body).toString("utf8");
  return raw.body.toString("utf8");
}

/** The scripts a piece of a page names with `modulepreload` links, in order. */
function preloadsIn(html: string): string[] {
  return [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!);
}

async function adminToken(): Promise<string> {
  const response = await fetch(`${BASE_URL}/login`, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(ADMIN),
  });
  return ((await response.json()) as { token: string }).token;
}

// Plain HTTP from the test process: once is enough, not once per browser project (the no-js
// project leaves out @http, tests/e2e/playwright.config.ts).
test.describe("compression and revalidation", { tag: "@http" }, () => {
  test("br, gzip and identity are negotiated on a page, loader data, /api JSON, an asset and a CSV export", async ({
    cast,
    mocApi,
  }) => {
    // A reason no other test writes: the CSV export names only this MOC, so the MOCs that tests
    // running beside this one raise between two requests do not change its bytes.
    const tag = `Compression check ${randomBytes(4).toString("hex")}`;
    await mocApi.create(cast, { "reason-for-change": { value: tag } });
    const auth = { Authorization: `Bearer ${await adminToken()}` };
    const page = decode(await rawGet("/mocs", { ...auth, "Accept-Encoding": "identity" }));
    // Remix's entry, joined with React and Remix (scripts/chunks.ts): the largest file of every page.
    const asset = /href="(\/assets\/entry\.client-[\w-]+\.js)"/.exec(page)?.[1];
    expect(asset, "the page preloads the entry").toBeTruthy();
    const targets: [what: string, path: string, type: RegExp, contains: string][] = [
      ["page", "/mocs", /^text\/html/, "<!DOCTYPE html>"],
      ["loader data", "/mocs.data", /^text\/x-script/, "routes/mocs+/_index"],
      ["/api JSON", "/api/newmoc", /^application\/json/, '"serial_num"'],
      ["asset", asset!, /javascript/, "function"],
      ["CSV export", `/api/getAllMoc?format=csv&q=${encodeURIComponent(tag)}`, /^text\/csv/, "serial"],
    ];
    for (const [what, path, type, contains] of targets) {
      const plain = await rawGet(path, { ...auth, "Accept-Encoding": "identity" });
      expect(plain.status, what).toBe(200);
      expect(plain.headers["content-encoding"], `${what} without compression`).toBeUndefined();
      expect(String(plain.headers["content-type"]), what).toMatch(type);
      expect(String(plain.headers.vary), `${what} varies by encoding`).toMatch(/Accept-Encoding/i);
      const text = plain.body.toString("utf8");
      expect(text.toLowerCase(), what).toContain(contains.toLowerCase());
      for (const encoding of ["br", "gzip"]) {
        const packed = await rawGet(path, { ...auth, "Accept-Encoding": `${encoding}, identity;q=0.5` });
        expect(packed.status, `${what} ${encoding}`).toBe(200);
        expect(packed.headers["content-encoding"], `${what} ${encoding}`).toBe(encoding);
        expect(packed.body.length, `${what} ${encoding} is smaller`).toBeLessThan(plain.body.length);
        // Pages carry a fresh CSP nonce each time: compare what they say, not their bytes.
        const decoded = decode(packed);
        if (what === "page") expect(decoded).toContain("<!DOCTYPE html>");
        else if (what === "CSV export" || what === "asset") expect(decoded).toBe(text);
        else expect(decoded.toLowerCase()).toContain(contains.toLowerCase());
      }
      // Brotli is preferred when both are offered.
      const both = await rawGet(path, { ...auth, "Accept-Encoding": "gzip, deflate, br" });
      expect(both.headers["content-encoding"], `${what} prefers br`).toBe("br");
    }
    // The asset comes from the file the build compressed, with its immutable caching.
    const br = await rawGet(asset!, { "Accept-Encoding": "br" });
    expect(br.headers["cache-control"]).toContain("immutable");
    // Never revalidated, so no validators to carry.
    expect(br.headers.etag).toBeUndefined();
    expect(br.headers["last-modified"]).toBeUndefined();
  });

  test("a page names its scripts at the top of its head, before its styles and content, in few files", async ({
    cast,
    mocApi,
  }) => {
    const moc = await mocApi.create(cast);
    const auth = { Authorization: `Bearer ${await adminToken()}` };
    for (const path of ["/", "/mocs", `/mocs/${moc._id}`]) {
      const page = decode(await rawGet(path, { ...auth, "Accept-Encoding": "br" }));
      const head = page.slice(0, page.indexOf("</head>"));
      const preloads = preloadsIn(head);
      // Over a ship's link the browser asks for them with the page's first bytes, not its last.
      expect(preloads.length, path).toBeGreaterThan(0);
      // The stylesheet after them: in the page on a first visit, linked afterwards (app/utils/stylesheet.tsx).
      expect(head.indexOf('rel="modulepreload"'), path).toBeLessThan(head.search(/<style|rel="stylesheet"/));
      expect(
        preloads.some((url) => /\/assets\/entry\.client-/.test(url)),
        path,
      ).toBe(true);
      // The same files Remix names at the end of the body, and at most ten of them (scripts/chunks.ts).
      const body = page.slice(page.indexOf("</head>"));
      const remix = new Set(preloadsIn(body));
      expect(new Set(preloads), path).toEqual(remix);
      expect(preloads.length, path).toBeLessThanOrEqual(10);
    }
  });

  test("an unchanged page and its loader data answer 304 to If-None-Match; a changed one answers 200", async ({
    cast,
    mocApi,
  }) => {
    const moc = await mocApi.create(cast);
    const auth = { Authorization: `Bearer ${await adminToken()}` };
    for (const path of [`/mocs/${moc._id}`, `/mocs/${moc._id}.data`]) {
      // The new MOC's notices are fanned out by a background job, and the viewer's unread count
      // is part of the page: until that settles the page really changes, and a 200 with a new tag
      // is the right answer. The page is unchanged once two reads in a row carry the same tag.
      let tag = "";
      let again: Raw | undefined;
      for (let attempt = 0; attempt < 10 && again?.status !== 304; attempt++) {
        const first = await rawGet(path, { ...auth, "Accept-Encoding": "br" });
        expect(first.status, path).toBe(200);
        tag = String(first.headers.etag);
        expect(tag, path).toMatch(/^W\/".+"$/);
        expect(first.headers["cache-control"], path).toContain("no-cache");
        again = await rawGet(path, { ...auth, "Accept-Encoding": "br", "If-None-Match": tag });
        if (again.status !== 304) expect(again.headers.etag, path).not.toBe(tag);
      }
      expect(again!.status, path).toBe(304);
      expect(again!.body.length, path).toBe(0);
      // The stored page keeps its own CSP (its nonce): a 304 does not send a new one.
      expect(again!.headers["content-security-policy"], path).toBeUndefined();
      expect(again!.headers.etag, path).toBe(tag);
    }
    // Something on the record changes: the same tag no longer matches.
    const before = await rawGet(`/mocs/${moc._id}`, { ...auth, "Accept-Encoding": "identity" });
    await mocApi.submit("/api/submit/implementer", cast.implementer, stepBody("implementer", moc, cast));
    const after = await rawGet(`/mocs/${moc._id}`, {
      ...auth,
      "Accept-Encoding": "identity",
      "If-None-Match": String(before.headers.etag),
    });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });
});

/** Every element of the page that is wider than its box (tables scroll inside their own frame). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      if (el.closest(".table-wrap, input, textarea, select, pre, svg")) continue;
      const style = getComputedStyle(el);
      if (style.overflowX === "auto" || style.overflowX === "scroll") continue;
      // Visually hidden text (1 px, clipped) is for screen readers; a long name ends in "…" on purpose.
      if (style.position === "absolute" && el.clientWidth <= 1) continue;
      if (style.overflowX === "hidden" && style.textOverflow === "ellipsis") continue;
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
        found.push(`${el.tagName.toLowerCase()}.${el.className} ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return found;
  });
}

test.describe("layouts", () => {
  test("no page scrolls sideways at 375 px or at 1280 px", async ({ cast, mocApi, openAs }) => {
    test.setTimeout(180_000);
    const moc = await mocApi.createAt(cast, "hseq");
    const pcr = await fetch(`${BASE_URL}/api/pcr`, {
      method: "POST",
      headers: { Authorization: `Bearer ${cast.originator.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        title: "Mooring line inspection interval",
        "reason-for-change": "<p>Two parted lines last quarter</p>",
      }),
    }).then((r) => r.json() as Promise<{ data?: { _id: string } }>);
    const pages: [Person, string][] = [
      [cast.hseq, "/"],
      [cast.hseq, "/mocs"],
      [cast.hseq, `/mocs/${moc._id}`],
      [cast.hseq, `/mocs/${moc._id}/hseq`],
      [cast.originator, "/pcrs"],
      [cast.originator, pcr.data?._id ? `/pcrs/${pcr.data._id}` : "/pcrs"],
      [cast.originator, "/mocs/new"],
      [cast.originator, "/pcrs/new"],
      [cast.hseq, "/insights"],
      [cast.originator, "/archive"],
      [cast.originator, "/reviews"],
      [cast.originator, "/notifications"],
      [cast.originator, "/profile"],
    ];
    for (const width of [375, 1280]) {
      const pageOf = new Map<Person, Page>();
      for (const [who, path] of pages) {
        if (!pageOf.has(who)) pageOf.set(who, await openAs(who));
        const page = pageOf.get(who)!;
        await page.setViewportSize({ width, height: 800 });
        const response = await page.goto(path);
        expect(response?.status(), path).toBeLessThan(400);
        expect(await overflowing(page), `${path} at ${width} px`).toEqual([]);
        const sizes = await page.evaluate(() => [
          document.documentElement.scrollWidth,
          document.documentElement.clientWidth,
        ]);
        expect(sizes[0], `${path} at ${width} px: scrollWidth <= clientWidth`).toBeLessThanOrEqual(sizes[1]!);
      }
    }
  });

  test("the MOC's pages fit 375 px with the longest title, names and plan items", async ({
    cast,
    createUser,
    mocApi,
    openAs,
  }) => {
    test.setTimeout(180_000);
    // Words longer than a phone is wide (part numbers, links, German compounds) at every field's limit.
    const word = (n: number) => "Ballastwasserbehandlungsanlage".repeat(Math.ceil(n / 30)).slice(0, n);
    const fill = (n: number) => `${word(80)} ${"long text ".repeat(n)}`.slice(0, n);
    const owner = await createUser({
      name: `${word(100)} ${randomBytes(3).toString("hex")}`,
      department: "engineering",
    });
    const moc = await mocApi.create(cast, {
      title: { value: `${word(90)} ${"x".repeat(29)}` },
      "description-of-change": { value: `<p>${word(200)} https://example.com/${word(150)}</p>` },
      "reason-for-change": { value: fill(1000) },
    });
    const item = { description: fill(2000), owner: owner._id, due: "2030-01-31" };
    await mocApi.submit("/api/actionTable", cast.implementer, { id: moc._id, action: { items: [item, item] } });
    await mocApi.submit("/api/manualsPlan", cast.implementer, {
      id: moc._id,
      manual_plan: { items: [{ document: fill(500), change: fill(2000), owner: owner._id, due: "2030-01-31" }] },
    });
    await mocApi.submit("/api/impact", cast.implementer, {
      moc_id: moc._id,
      impact_assessment: [{ category: fill(200), hazards: [fill(1000), word(300)] }],
    });
    const editor = await openAs(cast.implementer);
    // The owner of the plan items, with the longest name: their dashboard lists them as "My actions".
    const ownerPage = await openAs({ ...owner, token: owner.token! });
    const page = await openAs(cast.hseq);
    const visits: [Page, string][] = [
      [page, `/mocs/${moc._id}`],
      [page, `/mocs/${moc._id}/print`],
      [page, "/mocs"],
      [page, "/"],
      [editor, `/mocs/${moc._id}/actions`],
      [editor, `/mocs/${moc._id}/manuals`],
      [editor, `/mocs/${moc._id}/impact`],
      [ownerPage, "/"],
      // The affected parties to choose from name every person, the longest name among them.
      [editor, "/pcrs/new"],
    ];
    for (const [who, path] of visits) {
      await who.setViewportSize({ width: 375, height: 800 });
      const response = await who.goto(path);
      expect(response?.status(), path).toBeLessThan(400);
      expect(await overflowing(who), `${path} at 375 px`).toEqual([]);
    }
    await page.goto(`/mocs/${moc._id}`);
    await page.screenshot({ path: `/tmp/moc-longest-375-${test.info().project.name}.png`, fullPage: true });
  });

  test("the header is one row at 1280 px for the admin, an HSEQ user and a standard user, and fits at 375 px", async ({
    browser,
    cast,
    openAs,
  }) => {
    test.setTimeout(180_000);
    const admin = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
    const adminPage = await admin.newPage();
    await adminPage.goto("/login");
    await adminPage.getByLabel("Email").fill(ADMIN.email);
    await adminPage.getByLabel("Password").fill(ADMIN.password);
    await adminPage.getByRole("button", { name: "Sign in" }).click();
    await adminPage.waitForURL((url) => url.pathname !== "/login");
    const people: [string, Page][] = [
      ["admin", adminPage],
      ["HSEQ user", await openAs(cast.hseq)],
      ["standard user", await openAs(cast.originator)],
    ];
    for (const [role, page] of people) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto("/");
      const nav = page.getByRole("navigation", { name: "Main" });
      const links = await nav.getByRole("link").all();
      expect(links.length, role).toBeGreaterThan(3);
      const tops = new Set<number>();
      for (const link of links) tops.add(Math.round((await link.boundingBox())!.y));
      const signOut = (await page.getByRole("button", { name: "Sign out" }).boundingBox())!;
      tops.add(Math.round(signOut.y + signOut.height / 2 - 16));
      const spread = Math.max(...tops) - Math.min(...tops);
      expect(spread, `${role}: the header's links and buttons share one row at 1280 px`).toBeLessThan(20);
      expect(await overflowing(page), `${role} at 1280 px`).toEqual([]);
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto("/");
      expect(await overflowing(page), `${role} at 375 px`).toEqual([]);
    }
    await admin.close();
  });
});

test(
  "the stylesheet is one immutable file a signed-in page links, written into the page only on a first visit; with JavaScript it hydrates without an error",
  { tag: "@once" },
  async ({ browser, baseURL, cast, mocApi, openAs }) => {
    test.setTimeout(240_000);
    const javaScriptEnabled = test.info().project.use.javaScriptEnabled;
    const errors: string[] = [];
    const watch = (page: Page) => {
      page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`);
      });
    };
    const styled = async (page: Page, path: string) => {
      // The styles apply: the page has the sheet's colours, not the browser's default.
      const background = await page.locator("html").evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(background, path).not.toBe("rgba(0, 0, 0, 0)");
    };

    // A first visit (a new browser): the sheet is in the page, no stylesheet request before it is
    // drawn; the file is fetched once the page has loaded (prefetch), for the next.
    const fresh = await browser.newContext({ javaScriptEnabled });
    const first = await fresh.newPage();
    watch(first);
    const answer = await first.goto("/login");
    await first.waitForLoadState("networkidle");
    expect(await first.locator("style#app-styles").count()).toBe(1);
    expect(await first.locator('link[rel="stylesheet"]').count()).toBe(0);
    const href = await first.locator("style#app-styles").getAttribute("data-href");
    expect(href).toMatch(/^\/assets\/all-[\w-]+\.css$/);
    // Without JavaScript the page asks for the file once idle; with it, the service worker's precache does.
    expect(await answer!.text()).toContain(`<noscript><link rel="prefetch" href="${href}" as="style"/></noscript>`);
    expect(await answer!.headerValue("set-cookie")).toContain(`sheet=${href!.slice("/assets/".length)}`);
    await styled(first, "/login");
    // The page names this sheet now: the next one links it.
    expect((await fresh.cookies()).find((c) => c.name === "sheet")?.value).toBe(href!.slice("/assets/".length));
    await first.goto("/login");
    expect(await first.locator("style#app-styles").count()).toBe(0);
    expect(await first.locator('link[rel="stylesheet"]').getAttribute("href")).toBe(href);
    await styled(first, "/login again");
    await fresh.close();

    // The file: immutable, a year, no validators, compressed (app/server/client-files.ts).
    const sheet = await rawGet(href!, { "Accept-Encoding": "br" });
    expect(sheet.status).toBe(200);
    expect(sheet.headers["content-type"]).toContain("text/css");
    expect(sheet.headers["cache-control"]).toContain("immutable");
    expect(sheet.headers["cache-control"]).toContain("max-age=31536000");
    expect(sheet.headers.etag).toBeUndefined();
    expect(sheet.headers["content-encoding"]).toBe("br");

    // Signed in (a browser whose first page this is): the sheet in the first page, then every page
    // links the same file and carries no sheet of its own.
    const moc = await mocApi.createAt(cast, "hseq");
    const page = await openAs(cast.hseq);
    watch(page);
    await page.goto("/");
    expect(await page.locator("style#app-styles").count()).toBe(1);
    await styled(page, "/ first");
    await page.waitForLoadState("networkidle");
    const sheets: string[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname.endsWith(".css")) sheets.push(response.headers()["cache-control"] ?? "");
    });
    const paths = ["/", "/mocs", `/mocs/${moc._id}`, `/mocs/${moc._id}/hseq`, "/insights", "/archive/mocs", "/reviews"];
    for (const path of paths) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      expect(await page.locator("style#app-styles").count(), path).toBe(0);
      expect(await page.locator('link[rel="stylesheet"]').count(), path).toBe(1);
      expect(await page.locator('link[rel="stylesheet"]').getAttribute("href"), path).toBe(href);
      await styled(page, path);
    }
    // Fetched once, as immutable; later pages take it from the browser's cache.
    expect(sheets.length).toBeGreaterThan(0);
    for (const cacheControl of sheets) expect(cacheControl).toContain("immutable");

    // A cookie naming another build's sheet (a deploy since): the page carries the new one again.
    await page.context().addCookies([{ name: "sheet", value: "all-0ld.css", url: baseURL! }]);
    await page.goto("/");
    expect(await page.locator("style#app-styles").count()).toBe(1);
    expect(await page.locator('link[rel="stylesheet"]').count()).toBe(0);
    await styled(page, "/ after a deploy");
    await page.goto("/mocs");
    expect(await page.locator('link[rel="stylesheet"]').getAttribute("href")).toBe(href);

    // A client-side navigation keeps the sheet (the root never unmounts).
    if (javaScriptEnabled) {
      await page.goto("/");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "MOCs" }).click();
      await page.waitForURL("**/mocs");
      expect(await page.locator('link[rel="stylesheet"]').count()).toBe(1);
      await styled(page, "/mocs, navigated");
    }
    expect(errors).toEqual([]);
  },
);

test(
  "with JavaScript, a page's route manifest names only the routes it renders; the routes it links to are discovered and navigate client-side",
  { tag: "@js" },
  async ({ cast, openAs }) => {
    const page = await openAs(cast.originator);
    const manifestPaths: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/__manifest") manifestPaths.push(...url.searchParams.getAll("p"));
    });
    await page.goto("/");
    // Written into the page: the root and the dashboard (Remix v2's lazy route discovery), not the app's ~200 routes.
    const html = await (await page.request.get("/")).text();
    const from = html.indexOf("window.__remixManifest");
    const inPage = html.slice(from, html.indexOf("</script>", from));
    expect(inPage).toContain('"routes/_index"');
    expect(inPage).not.toContain('"routes/mocs+/_index"');
    expect(inPage.match(/"id":\s*"/g)?.length).toBeLessThan(5);
    // The links the page shows are discovered after it loads, in one request.
    await expect.poll(() => manifestPaths.includes("/mocs"), { timeout: 15_000 }).toBe(true);
    await page.waitForLoadState("networkidle");
    let documents = 0;
    page.on("request", (request) => {
      if (request.resourceType() === "document") documents++;
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "MOCs" }).click();
    await page.waitForURL("**/mocs");
    await expect(page.getByRole("heading", { level: 1, name: "MOCs" })).toBeVisible();
    expect(documents, "a client-side navigation, not a new page").toBe(0);
  },
);

test(
  "with JavaScript, the code of the pages linked from this one is fetched once it has loaded: a click then waits for data alone",
  { tag: "@js" },
  async ({ cast, openAs }) => {
    const page = await openAs(cast.originator);
    await page.goto("/", { waitUntil: "load" });
    // The MOC list's route module arrives without being asked for (after the load event, at idle,
    // once Remix has discovered the routes the page links to).
    const listModulePreloaded = () =>
      page.evaluate(() => {
        const manifest = (window as { __remixManifest?: { routes: Record<string, { module: string } | undefined> } })
          .__remixManifest;
        const module = manifest?.routes["routes/mocs+/_index"]?.module;
        return Boolean(module && document.querySelector(`link[rel="modulepreload"][href="${module}"]`));
      });
    await expect.poll(listModulePreloaded, { timeout: 15_000 }).toBe(true);
    await page.waitForLoadState("networkidle");
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "MOCs" }).click();
    await page.waitForURL("**/mocs");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(scripts, "no code fetched on the click: it was fetched ahead").toEqual([]);
  },
);

test(
  "the record page opens on the step in hand and its owner, with finished parts folded",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    const moc = await mocApi.createAt(cast, "hseq");
    const page = await openAs(cast.hseq);
    await page.goto(`/mocs/${moc._id}`);
    await expect(page.getByText(new RegExp(`Waiting on\\s+${cast.hseq.name}`)).first()).toBeVisible();
    // Part A, the change itself, stays open: every later step decides on it.
    const partA = page.locator("section.part", { has: page.getByRole("heading", { name: "Part A — Originator" }) });
    await expect(partA.getByText("Reason for change")).toBeVisible();
    // Part B is finished: folded under its heading, opened on demand (no JavaScript needed).
    const partB = page.locator("details.part", {
      has: page.getByRole("heading", { name: "Part B — Implementer assessment" }),
    });
    await expect(partB).toBeVisible();
    await expect(partB).not.toHaveAttribute("open", "");
    await expect(partB.getByText("Details assessed")).toBeHidden();
    await partB.locator("summary").click();
    await expect(partB.getByText("Details assessed")).toBeVisible();
    // The parts nobody has reached are one short list.
    const toCome = page.getByRole("region", { name: "Not filled in yet" });
    await expect(toCome.getByRole("listitem")).toHaveText([
      "Part C — HSEQ review",
      "Part D — Approval",
      "Part E — Implementation",
      "Part F — Verification",
    ]);
  },
);
