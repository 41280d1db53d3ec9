/**
 * Replays apply once, in the browser (docs/decisions/040-replays-apply-once.md): every page form
 * that writes carries a hidden `idempotencyKey`, fresh for each view of a page that changed; a submission whose answer
 * was lost (the server applied it, the request was sent again) applies once; the same form sent
 * twice with its key applies once; one form used twice in a row (keys renewed after each answer)
 * applies twice. With and without JavaScript.
 */
import type { Page, Route } from "@playwright/test";
import { expect, jsEnabled, test } from "./moc-fixtures";
import { chat, message, open, roomMessages, send } from "./chat-helpers";

const KEY = /^[0-9a-f]{32}$/;

async function formKeys(page: Page): Promise<string[]> {
  return page
    .locator('form input[type="hidden"][name="idempotencyKey"]')
    .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
}

test("every form that writes carries its own idempotency key, new for each view", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await open(page, `/mocs/${moc._id}`);
  const writes = await page.locator('form[method="post"]').count();
  const keys = await formKeys(page);
  expect(writes).toBeGreaterThan(0);
  expect(keys).toHaveLength(writes);
  for (const key of keys) expect(key).toMatch(KEY);
  expect(new Set(keys).size).toBe(keys.length);
  // Forms that only read (a search) have none.
  expect(await page.locator('form[method="get"] input[name="idempotencyKey"]').count()).toBe(0);
  // A view of the page once it has changed carries new keys. (An unchanged page may come back as
  // the stored copy, a 304 with the keys it had: decision 040, "Keys and revalidation".)
  await send(page, "The page changes");
  await expect(message(page, "The page changes")).toBeVisible();
  await page.reload();
  const again = await formKeys(page);
  expect(again.filter((key) => keys.includes(key))).toEqual([]);
});

test("a message whose answer was lost, sent again by the browser, is posted once", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await open(page, `/mocs/${moc._id}`);
  const replayed: (string | undefined)[] = [];
  let lost = false;
  await page.route(
    (url) => url.pathname.startsWith(`/mocs/${moc._id}`),
    async (route: Route) => {
      if (route.request().method() !== "POST" || lost) return route.fallback();
      lost = true;
      // The server applies the message; its answer never reaches the browser.
      const first = await route.fetch({ maxRedirects: 0 });
      expect(first.status()).toBeLessThan(400);
      // The same request again (what a retry after a dropped link sends): the stored answer.
      const retry = await route.fetch({ maxRedirects: 0 });
      replayed.push(retry.headers()["idempotent-replayed"]);
      await route.fulfill({ response: retry });
    },
  );
  const text = "Sent over a link that dropped the answer";
  await send(page, text);
  await expect(message(page, text)).toBeVisible();
  expect(replayed).toEqual(["true"]);
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text]);
  await page.reload();
  await expect(message(page, text)).toHaveCount(1);
});

test("the same form sent twice with its key is posted once; the next message gets a new key", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await open(page, `/mocs/${moc._id}`);
  const form = chat(page).locator("form");
  const text = "Posted, then the same form once more";
  await chat(page).getByLabel("Message", { exact: true }).fill(text);
  // Exactly what the form sends (with JavaScript, `via=js` too).
  const fields = await form.evaluate((element) =>
    Object.fromEntries([...new FormData(element as HTMLFormElement)].map(([name, value]) => [name, String(value)])),
  );
  const key = fields.idempotencyKey!;
  expect(key).toMatch(KEY);
  await chat(page).getByRole("button", { name: "Send", exact: true }).click();
  await expect(message(page, text)).toBeVisible();

  // The same submission again from this browser (its cookie), as a double send would.
  const again = await page.request.post(`/mocs/${moc._id}?index`, {
    form: fields,
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  });
  expect(again.status()).toBe(jsEnabled() ? 200 : 302);
  expect(again.headers()["idempotent-replayed"]).toBe("true");
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text]);

  // The form's key was renewed after the answer: a second message is a new request.
  const next = await form.locator('input[name="idempotencyKey"]').inputValue();
  expect(next).toMatch(KEY);
  expect(next).not.toBe(key);
  await send(page, "A second message");
  await expect(message(page, "A second message")).toBeVisible();
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text, "A second message"]);
  // The Send button leaves its pending state once the fetcher is idle, after the page's data is
  // read again; the message can show before that (a CI run counted it still pending).
  if (jsEnabled()) await expect(page.locator("[data-pending]")).toHaveCount(0);
});
