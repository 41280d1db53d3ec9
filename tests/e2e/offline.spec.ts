/**
 * At sea, part 2 (docs/decisions/045-offline-shell-and-drafts.md): a record opened before is read
 * without a link under the "Offline — as of" banner, and signing out empties what was kept; forms
 * written offline wait in the browser and apply once when the link returns; a refused one stays
 * with the server's words. All about what JavaScript adds (the service worker, IndexedDB): @js.
 */
import type { Page } from "@playwright/test";
import { STEP_PATH, stepBody } from "../helpers/moc";
import { chat, open, roomMessages, message } from "./chat-helpers";
import { answer, expect, fillRichText, futureDate, ready, test } from "./moc-fixtures";

/** Waits until the service worker controls the page (the first load registers it). */
async function controlled(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve));
    }
  });
}

const savedPages = (page: Page) =>
  page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      if (!name.startsWith("offline-pages-")) continue;
      out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
    }
    return out;
  });

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
  await expect.poll(() => savedPages(page)).toEqual({ [`offline-pages-${cast.originator._id}`]: [`/mocs/${moc._id}`] });
  await page.goto("/");
  await expect
    .poll(async () => (await savedPages(page))[`offline-pages-${cast.originator._id}`]?.sort())
    .toEqual(["/", `/mocs/${moc._id}`].sort());

  await page.context().setOffline(true);
  await page.goto(`/mocs/${moc._id}`);
  const banner = page.getByRole("status").filter({ hasText: /^Offline — as of \d{2}:\d{2} UTC/ });
  await expect(banner).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(chat(page)).toBeVisible();
  // A read-only copy: nothing of the page's JavaScript runs on it.
  expect(await page.locator("script").count()).toBe(0);
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
  await expect.poll(() => savedPages(page)).toEqual({ [`offline-pages-${cast.implementer._id}`]: ["/"] });
  await page.context().addCookies([originatorCookie]);

  // Signing out empties the saved pages; offline, the record is no longer there.
  await page.goto("/");
  await ready(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await savedPages(page)).toEqual({});
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
  await expect(drafts(record)).toContainText(`Chat message on a MOC: ${text}`);

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
