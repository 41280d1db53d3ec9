/**
 * At sea, part 2 (docs/decisions/045-offline-shell-and-drafts.md): a record opened before is read
 * without a link under the "Offline — as of" banner, and signing out empties what was kept; forms
 * written offline wait in the browser and apply once when the link returns; a refused one stays
 * with the server's words. All about what JavaScript adds (the service worker, IndexedDB): @js.
 */
import type { Page } from "@playwright/test";
import postgres from "postgres";
import { STEP_PATH, stepBody } from "../helpers/moc";
import { chat, open, roomMessages, message } from "./chat-helpers";
import { answer, expect, fillRichText, futureDate, ready, test } from "./moc-fixtures";
import { e2eDatabaseUrl } from "./second-instance";

// The service worker is the subject here (blocked elsewhere: tests/e2e/playwright.config.ts).
test.use({ serviceWorkers: "allow" });

/** Waits until the service worker controls the page (the first load registers it). */
async function controlled(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve));
    }
  });
}

/** Every saved page, by cache (one per session): `offline-pages-<session>` → its paths, sorted. */
const savedPages = (page: Page) =>
  page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      if (!name.startsWith("offline-pages-")) continue;
      out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname).sort();
    }
    return out;
  });

/** The paths saved for reading offline, whatever the session (sorted). */
const savedPaths = async (page: Page) =>
  Object.values(await savedPages(page))
    .flat()
    .sort();

/** What a session token says (its claims are plain base64url JSON; the signature is not checked here). */
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { sid: string; exp: number };

const notSaved = (page: Page) => page.getByRole("heading", { name: "This page was not saved for reading offline" });

/** The person's drafts in this browser's IndexedDB (read from the page, whatever page it is). */
const storedDrafts = (page: Page, user: string) =>
  page.evaluate(
    (user) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open("cm-drafts");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains("drafts")) return resolve(0);
          const count = db.transaction("drafts").objectStore("drafts").index("user").count(user);
          count.onsuccess = () => resolve(count.result);
          count.onerror = () => reject(count.error);
        };
      }),
    user,
  );

const drafts = (page: Page) => page.locator(".drafts-panel");
/** Hydrated, and the drafts code loaded (it loads after the page). */
async function draftsReady(page: Page) {
  await ready(page);
  await page.locator("html[data-drafts=ready]").waitFor({ state: "attached" });
}

test("a record opened before is read offline under the banner; another person or signing out empties it @js", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto("/");
  await ready(page);
  await controlled(page);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  await expect.poll(() => savedPaths(page)).toEqual([`/mocs/${moc._id}`]);
  await page.goto("/");
  await expect.poll(() => savedPaths(page)).toEqual(["/", `/mocs/${moc._id}`].sort());
  const [originatorCache] = Object.keys(await savedPages(page));

  await page.context().setOffline(true);
  await page.goto(`/mocs/${moc._id}`);
  const banner = page.getByRole("status").filter({ hasText: /^Offline — as of \d{2}:\d{2} UTC/ });
  await expect(banner).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(chat(page)).toBeVisible();
  // A read-only copy: nothing of the page's JavaScript runs on it.
  expect(await page.locator("script").count()).toBe(0);
  // Kept with the stylesheet it linked written in (a later deploy's worker no longer holds that file), and drawn with it.
  expect(await page.locator('link[rel="stylesheet"]').count()).toBe(0);
  expect(await page.locator('style[data-href^="/assets/all-"]').count()).toBe(1);
  expect(await page.locator("header.topbar").evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(
    "rgba(0, 0, 0, 0)",
  );
  await page.goto("/");
  await expect(banner).toBeVisible();
  // A page never opened is not there: said so, not an error of the browser.
  await page.goto("/pcrs");
  await expect(page.getByRole("heading", { name: "This page was not saved for reading offline" })).toBeVisible();

  // Back online, another person's page on this browser (their session, however it came) drops
  // everything saved for the one before.
  await page.context().setOffline(false);
  const other = await openAs(cast.implementer);
  const implementerCookie = (await other.context().cookies()).find((c) => c.name === "session")!;
  await other.context().close();
  const originatorCookie = (await page.context().cookies()).find((c) => c.name === "session")!;
  await page.context().addCookies([implementerCookie]);
  await page.goto("/");
  await expect.poll(() => savedPaths(page)).toEqual(["/"]);
  expect(Object.keys(await savedPages(page))).not.toContain(originatorCache);
  await page.context().addCookies([originatorCookie]);

  // Signing out empties the saved pages; offline, the record is no longer there.
  await page.goto("/");
  await ready(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect.poll(() => savedPages(page)).toEqual({});
  await page.context().setOffline(true);
  await page.goto(`/mocs/${moc._id}`);
  await expect(page.getByRole("heading", { name: "This page was not saved for reading offline" })).toBeVisible();
});

test("a new MOC and a chat message written offline apply exactly once when the link returns @js", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const form = await openAs(cast.originator);
  await form.goto("/mocs/new");
  await draftsReady(form);
  const record = await form.context().newPage();
  await open(record, `/mocs/${moc._id}`);
  await draftsReady(record);

  await form.context().setOffline(true);
  const reason = `Written offline ${Date.now()}`;
  await form.getByLabel("Title").fill("Bilge alarm panel");
  await form.getByLabel("Vessel or scope").selectOption({ label: "Fleet-wide" });
  await form.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await form.getByLabel("Department of change").selectOption({ label: "Engineering" });
  await fillRichText(form, "Description of change", "Replace the bilge alarm panel");
  await form.getByLabel("Reason for change").fill(reason);
  await form.getByRole("group", { name: "Affected departments" }).getByLabel("Engineering").check();
  await form.getByRole("button", { name: "Submit MOC" }).click();
  await expect(drafts(form)).toContainText("Waiting to send (1)");
  await expect(drafts(form)).toContainText(`New MOC: ${reason}`);
  expect(new URL(form.url()).pathname).toBe("/mocs/new");

  const text = `Message written offline ${Date.now()}`;
  await chat(record).getByLabel("Message", { exact: true }).fill(text);
  await chat(record).getByRole("button", { name: "Send", exact: true }).click();
  await expect(drafts(record)).toContainText("Waiting to send (2)");
  await expect(drafts(record)).toContainText(`Chat message on MOC ${moc.serial_num}`);
  await expect(drafts(record)).toContainText(text);

  // The link returns: both tabs hear it; the drafts go once, in the order written.
  await form.context().setOffline(false);
  await expect(drafts(form)).toBeHidden({ timeout: 20_000 });
  await expect(drafts(record)).toBeHidden({ timeout: 20_000 });
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text]);
  await record.reload();
  await expect(message(record, text)).toHaveCount(1);
  await form.goto("/mocs?scope=mine");
  // The MOC made through the API and the one written offline: no second copy of it.
  await expect(form.getByRole("link", { name: /^MOC \d+-\d{4}( — .+)?$/ })).toHaveCount(2);
});

test("a step written offline at 375 px keeps its form, names its record, covers no field, and the page moves on when it is sent @js", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`/mocs/${moc._id}/implementer`);
  await draftsReady(page);
  const thread = await page.context().newPage();
  await thread.setViewportSize({ width: 375, height: 740 });
  await open(thread, `/mocs/${moc._id}`);
  await draftsReady(thread);

  await page.context().setOffline(true);
  const target = futureDate(30);
  await answer(page, "Have the details of the change been assessed?", "Yes");
  await answer(page, "Is the change necessary and justified?", "Yes");
  await page.getByLabel("Approver", { exact: true }).selectOption(cast.approver._id);
  await page.getByLabel("HSEQ user", { exact: true }).selectOption(cast.hseq._id);
  await page.getByLabel("Target date").fill(target);
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(drafts(page)).toContainText("Waiting to send (1)");
  // Named by its record and its form, not by an address.
  await expect(drafts(page)).toContainText(`Part B — Implementer assessment of MOC ${moc.serial_num}`);
  // The form keeps what was written until it is sent.
  await expect(page.getByLabel("Target date")).toHaveValue(target);
  await expect(page.getByLabel("Approver", { exact: true })).toHaveValue(cast.approver._id);
  // Sent again before the link returns: the one draft is replaced, not doubled.
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(page.locator(".drafts-status")).toContainText("Replaced:");
  await expect(drafts(page)).toContainText("Waiting to send (1)");
  // The list covers no field of the form, wherever the page is scrolled.
  for (const y of [0, 400, 10_000]) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    const covered = await page.evaluate(() => {
      const list = document.querySelector(".drafts-panel")!.getBoundingClientRect();
      return [...document.querySelectorAll("main input, main select, main textarea, main button")]
        .filter((field) => {
          const box = field.getBoundingClientRect();
          return (
            box.width > 0 &&
            box.left < list.right &&
            box.right > list.left &&
            box.top < list.bottom &&
            box.bottom > list.top
          );
        })
        .map((field) => field.getAttribute("name") ?? field.textContent);
    });
    expect(covered, `scrolled to ${y}`).toEqual([]);
  }
  await page.screenshot({ path: "/tmp/offline-step-375.png", fullPage: true });

  // A chat message written offline shows in its thread as waiting to send.
  const text = `Written at sea ${Date.now()}`;
  await chat(thread).getByLabel("Message", { exact: true }).fill(text);
  await chat(thread).getByRole("button", { name: "Send", exact: true }).click();
  const waiting = chat(thread).getByRole("list", { name: "Waiting to send" });
  await expect(waiting).toContainText("Waiting to send");
  await expect(waiting).toContainText(text);
  await thread.screenshot({ path: "/tmp/offline-chat-375.png", fullPage: true });

  // The link returns: the step goes, and its page shows the record at its new step.
  await page.context().setOffline(false);
  await expect(drafts(page)).toBeHidden({ timeout: 20_000 });
  await expect(page).toHaveURL(new RegExp(`/mocs/${moc._id}$`));
  await expect(page.locator(".owner-line")).toContainText("HSEQ");
  // The thread shows the message as sent, once.
  await expect(waiting).toBeHidden({ timeout: 20_000 });
  await expect(message(thread, text)).toHaveCount(1);
  expect((await mocApi.get(moc._id)).status).toBe("c");
});

test("a queued step refused with 409 keeps the draft and shows why @js", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}/implementer`);
  await draftsReady(page);

  await page.context().setOffline(true);
  await answer(page, "Have the details of the change been assessed?", "Yes");
  await answer(page, "Is the change necessary and justified?", "Yes");
  await page.getByLabel("Approver", { exact: true }).selectOption(cast.approver._id);
  await page.getByLabel("HSEQ user", { exact: true }).selectOption(cast.hseq._id);
  await page.getByLabel("Target date").fill(futureDate(30));
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(drafts(page)).toContainText("Waiting to send (1)");

  // Meanwhile the step is taken elsewhere (the same person, through the API).
  await mocApi.submit(STEP_PATH.implementer, cast.implementer, stepBody("implementer", moc, cast));

  await page.context().setOffline(false);
  await expect(drafts(page)).toContainText("not accepted (1)", { timeout: 20_000 });
  await expect(drafts(page)).toContainText("Not accepted:");
  const why = (await drafts(page).locator("li").first().innerText()).split("Not accepted:")[1]?.trim() ?? "";
  expect(why.length).toBeGreaterThan(10);
  // Kept, not dropped: still there after a reload, until discarded.
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  await expect(drafts(page)).toContainText("Not accepted:");
  await drafts(page).getByRole("button", { name: "Discard" }).click();
  await expect(drafts(page)).toBeHidden();
});

test("a chat message whose answer was lost (the server applied it) is sent again and applies once @js", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await open(page, `/mocs/${moc._id}`);
  await draftsReady(page);

  // The post reaches the server and is applied; its answer never reaches the browser.
  let cut = 0;
  await page.route(/\/mocs\/[^/]+\.data\?index/, async (route) => {
    if (route.request().method() !== "POST" || cut > 0) return route.fallback();
    cut += 1;
    await route.fetch();
    await route.abort("connectionreset");
  });
  const text = `Answer lost ${Date.now()}`;
  await chat(page).getByLabel("Message", { exact: true }).fill(text);
  await chat(page).getByRole("button", { name: "Send", exact: true }).click();
  await expect.poll(() => roomMessages(request, cast.originator, moc.chat)).toEqual([text]);
  // Kept as a draft with the key it was sent with, and sent again: the server answers it as before.
  await expect(drafts(page)).toBeVisible();
  await expect(page.getByText(/^The link dropped before the answer came\./)).toBeVisible();
  await expect(drafts(page)).toBeHidden({ timeout: 20_000 });
  expect(cut).toBe(1);
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text]);
});

test("a session ended on the server drops the saved pages at its next answer, and offline they are gone @js", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto("/");
  await ready(page);
  await controlled(page);
  await page.goto(`/mocs/${moc._id}`);
  await page.goto("/");
  await ready(page);
  await expect.poll(() => savedPaths(page)).toEqual(["/", `/mocs/${moc._id}`].sort());
  // Kept under a name for the session that is neither its token nor its id.
  const { sid } = claimsOf(cast.originator.token);
  const [cache] = Object.keys(await savedPages(page));
  expect(cache).not.toContain(sid);
  expect(cache).not.toContain(cast.originator.token.split(".")[2]);

  // The session ends on the server (as an admin's revocation or a deactivation does), with no sign-out here.
  const sql = postgres(await e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    await sql`delete from sessions where id = ${sid}`;
  } finally {
    await sql.end();
  }
  // The next answer, to a client-side navigation, sends the page to sign in: the saved pages go.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "MOCs", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect.poll(() => savedPages(page)).toEqual({});
  await page.context().setOffline(true);
  await page.goto(`/mocs/${moc._id}`);
  await expect(notSaved(page)).toBeVisible();
  await page.goto("/");
  await expect(notSaved(page)).toBeVisible();
});

test("an offline copy carries the page's CSP with scripts forbidden, and none is served past the session's end @js", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto("/");
  await ready(page);
  await controlled(page);
  const online = (await page.goto(`/mocs/${moc._id}`))!.headers()["content-security-policy"]!;
  expect(online).toMatch(/script-src 'self' 'nonce-/);
  await expect.poll(() => savedPaths(page)).toEqual([`/mocs/${moc._id}`]);
  // Each copy records the end of the session it was saved under: the token's.
  const expires = await page.evaluate(async () => {
    const [name] = (await caches.keys()).filter((n) => n.startsWith("offline-pages-"));
    const cache = await caches.open(name!);
    return Promise.all((await cache.keys()).map(async (r) => (await cache.match(r))!.headers.get("X-Offline-Expires")));
  });
  expect(expires).toEqual([String(claimsOf(cast.originator.token).exp * 1000)]);

  await page.context().setOffline(true);
  const offline = (await page.goto(`/mocs/${moc._id}`))!;
  await expect(page.getByRole("status").filter({ hasText: /^Offline — as of/ })).toBeVisible();
  const policy = offline.headers()["content-security-policy"]!;
  const directives = (csp: string) =>
    csp
      .split(";")
      .map((d) => d.trim())
      .filter((d) => !d.startsWith("script-src"))
      .sort();
  // The page's own policy, every directive but scripts, which are forbidden outright (its nonce was stored).
  expect(directives(policy)).toEqual(directives(online));
  expect(policy).toContain("script-src 'none'");
  expect(policy).not.toContain("nonce-");
  expect(offline.headers()["x-frame-options"]).toBe("DENY");
  // The page that says a page was not saved has a policy too.
  const missing = (await page.goto("/pcrs"))!;
  expect(missing.headers()["content-security-policy"]).toContain("script-src 'none'");

  // The session's end passes (a worker's clock cannot be moved from a test: the copy's recorded end is).
  await page.evaluate(async () => {
    for (const name of await caches.keys()) {
      if (!name.startsWith("offline-pages-")) continue;
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        const copy = (await cache.match(request))!;
        const headers = new Headers(copy.headers);
        headers.set("X-Offline-Expires", String(Date.now() - 1000));
        await cache.put(request, new Response(await copy.text(), { headers }));
      }
    }
  });
  await page.goto(`/mocs/${moc._id}`);
  await expect(notSaved(page)).toBeVisible();
  expect(await savedPages(page)).toEqual({});
});

test("signing out without a link warns of unsent drafts, clears this browser at once, and revokes the session when the link returns @js", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto("/");
  await ready(page);
  await controlled(page);
  await open(page, `/mocs/${moc._id}`);
  await draftsReady(page);
  await expect.poll(() => savedPaths(page)).toEqual([`/mocs/${moc._id}`]);
  const cookie = (await page.context().cookies()).find((c) => c.name === "session")!.value;

  await page.context().setOffline(true);
  const text = `Unsent at sign-out ${Date.now()}`;
  await chat(page).getByLabel("Message", { exact: true }).fill(text);
  await chat(page).getByRole("button", { name: "Send", exact: true }).click();
  await expect(drafts(page)).toContainText("Waiting to send (1)");

  // Unsent work is not lost without a word: the person may stay signed in to send it.
  await page.getByRole("button", { name: "Sign out" }).click();
  const warning = page.getByRole("dialog", { name: "Delete 1 unsent form?" });
  await expect(warning).toContainText(`Chat message on MOC ${moc.serial_num}: ${text}`);
  await warning.getByRole("button", { name: "Stay signed in" }).click();
  await expect(warning).toBeHidden();
  expect(new URL(page.url()).pathname).toBe(`/mocs/${moc._id}`);
  expect(await storedDrafts(page, cast.originator._id)).toBe(1);

  await page.getByRole("button", { name: "Sign out" }).click();
  await warning.getByRole("button", { name: "Sign out and delete them" }).click();
  // The signed-out page, at the sign-in address: no error page.
  await expect(page.getByRole("heading", { name: "You are signed out" })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/login");
  await expect(page.getByText("The server is told that you signed out as soon as the link is back.")).toBeVisible();
  // Nothing of the person is readable here any more.
  expect(await savedPages(page)).toEqual({});
  expect(await storedDrafts(page, cast.originator._id)).toBe(0);
  await page.goto(`/mocs/${moc._id}`);
  await expect(notSaved(page)).toBeVisible();

  // The link returns: the sign-out goes before anything else, and the session is revoked.
  await page.context().setOffline(false);
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  const old = await request.get("/api/myUser", { headers: { Cookie: `session=${cookie}` } });
  expect(old.status()).toBe(401);
  expect((await page.context().cookies()).find((c) => c.name === "session")).toBeUndefined();
  // The draft deleted at sign-out was never sent.
  expect(await roomMessages(request, cast.implementer, moc.chat)).toEqual([]);
});

test("without a service worker a sign-out without a link is refused with a word, deleting nothing @js", async ({
  browser,
  baseURL,
  cast,
  mocApi,
  request,
}) => {
  const moc = await mocApi.create(cast);
  // A browser where the worker cannot run (a ship's server on plain http).
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    await context.addCookies([{ name: "session", value: cast.originator.cookie!, url: baseURL! }]);
    const page = await context.newPage();
    await open(page, `/mocs/${moc._id}`);
    await draftsReady(page);
    await context.setOffline(true);
    const text = `Kept without a worker ${Date.now()}`;
    await chat(page).getByLabel("Message", { exact: true }).fill(text);
    await chat(page).getByRole("button", { name: "Send", exact: true }).click();
    await expect(drafts(page)).toContainText("Waiting to send (1)");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.locator(".drafts-status")).toHaveText(/^Signing out needs the link on this connection/);
    expect(new URL(page.url()).pathname).toBe(`/mocs/${moc._id}`);
    expect(await storedDrafts(page, cast.originator._id)).toBe(1);
    await context.setOffline(false);
    const still = await request.get("/api/myUser", { headers: { Cookie: `session=${cast.originator.cookie}` } });
    expect(still.status()).toBe(200);
  } finally {
    await context.close();
  }
});
