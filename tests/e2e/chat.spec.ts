/**
 * The chat panel on the MOC and PCR pages. Without JavaScript the form posts and the page comes
 * back with the message (post/redirect/get); with JavaScript it is sent without a reload and the
 * panel polls, so a message from someone else shows within 3 seconds, also when it was sent
 * through another app instance on the same database. Messages are text: markup never runs.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, jsEnabled, ready, test, type Person } from "./moc-fixtures";
import { test as pcrTest } from "./pcr-fixtures";
import { startSecondInstance } from "./second-instance";

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const chat = (page: Page) => page.getByRole("region", { name: "Chat", exact: true });
const messageList = (page: Page) => chat(page).getByRole("list", { name: "Messages" });
/** The message whose text is exactly `text`. */
const message = (page: Page, text: string) =>
  messageList(page)
    .getByRole("listitem")
    .filter({ has: page.locator(".chat-text", { hasText: new RegExp(`^${escapeRegExp(text)}$`) }) });
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function send(page: Page, text: string) {
  await chat(page).getByLabel("Message", { exact: true }).fill(text);
  await chat(page).getByRole("button", { name: "Send", exact: true }).click();
}

/** Marks the loaded document, so a later check can tell that the page was not reloaded. */
async function markDocument(page: Page) {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
}
async function expectSameDocument(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
}

async function open(page: Page, path: string) {
  await page.goto(path);
  await ready(page);
  await expect(chat(page)).toBeVisible();
}

async function roomMessages(request: APIRequestContext, who: Person, chatId: string): Promise<string[]> {
  const response = await request.get(`/api/chat?chat_id=${chatId}`, {
    headers: { Authorization: `Bearer ${who.token}` },
  });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { chatData: { messages: { message: string }[] } };
  return body.chatData.messages.map((m) => m.message);
}

test("posting on the MOC page: the message is shown as the sender's own, and to others as theirs", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await open(page, `/mocs/${moc._id}`);
  await expect(chat(page).getByText("No messages yet")).toBeVisible();
  if (jsEnabled()) await markDocument(page);

  const text = "The new controller arrives on Tuesday.\nInstallation on Wednesday.";
  await send(page, text);
  const mine = message(page, text);
  await expect(mine).toBeVisible();
  await expect(mine).toContainText(`You (${cast.originator.name})`);
  await expect(mine).toHaveClass(/chat-mine/);
  await expect(mine.locator("time")).toHaveAttribute("datetime", ISO_Z);
  // The line break is kept (plain text, shown as written).
  expect(await mine.locator(".chat-text").innerText()).toBe(text);
  if (jsEnabled()) {
    await expectSameDocument(page);
    await expect(chat(page).getByLabel("Message", { exact: true })).toHaveValue("");
    await expect(chat(page).getByLabel("Message", { exact: true })).toBeFocused();
  } else {
    // Post/redirect/get: back on the record, at the end of the chat.
    expect(new URL(page.url()).pathname).toBe(`/mocs/${moc._id}`);
    expect(new URL(page.url()).hash).toBe("#chat-end");
  }
  expect(await roomMessages(request, cast.originator, moc.chat)).toEqual([text]);

  // Stored: a reload shows it; the implementer sees it as the originator's.
  await page.reload();
  await expect(message(page, text)).toBeVisible();
  const other = await openAs(cast.implementer);
  await open(other, `/mocs/${moc._id}`);
  const theirs = message(other, text);
  await expect(theirs).toContainText(cast.originator.name);
  await expect(theirs).not.toContainText("You (");
  await expect(theirs).not.toHaveClass(/chat-mine/);
});

test("an empty or too long message is refused next to the field, and nothing is posted", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await open(page, `/mocs/${moc._id}`);
  const field = chat(page).getByLabel("Message", { exact: true });

  await send(page, "   \n  ");
  await expect(chat(page).getByText("Write a message")).toBeVisible();
  await expect(field).toHaveAttribute("aria-invalid", "true");
  // The error is tied to the field.
  const describedBy = await field.getAttribute("aria-describedby");
  expect(describedBy).toBeTruthy();
  await expect(page.locator(`[id="${describedBy!.split(" ")[0]}"]`)).toHaveText("Write a message");

  await send(page, "x".repeat(5001));
  await expect(chat(page).getByText("A message can be at most 5,000 characters")).toBeVisible();
  await expect(chat(page).getByText("No messages yet")).toBeVisible();
  expect(await roomMessages(request, cast.implementer, moc.chat)).toEqual([]);

  // Fixed, it goes.
  await send(page, "x".repeat(5000));
  await expect(messageList(page).getByRole("listitem")).toHaveCount(1);
  await expect(chat(page).getByText("A message can be at most 5,000 characters")).toHaveCount(0);
  expect(await roomMessages(request, cast.implementer, moc.chat)).toEqual(["x".repeat(5000)]);
});

test("with JavaScript, a message from one person appears for another within 3 seconds, without a reload", async ({
  cast,
  mocApi,
  openAs,
}) => {
  test.skip(!jsEnabled(), "live updates need JavaScript; without it a reload shows new messages");
  const moc = await mocApi.create(cast);
  const originator = await openAs(cast.originator);
  const implementer = await openAs(cast.implementer);
  for (const page of [originator, implementer]) {
    await open(page, `/mocs/${moc._id}`);
    await markDocument(page);
  }

  await send(originator, "Can you start on Monday?");
  await expect(message(originator, "Can you start on Monday?")).toBeVisible();
  // From the moment the sender sees it stored: at most 3 seconds for the other person.
  await expect(message(implementer, "Can you start on Monday?")).toBeVisible({ timeout: 3_000 });
  await expect(message(implementer, "Can you start on Monday?")).toContainText(cast.originator.name);
  // Announced to screen readers, politely.
  await expect(chat(implementer).locator('[aria-live="polite"]')).toHaveText(
    `New message from ${cast.originator.name}: Can you start on Monday?`,
  );

  await send(implementer, "Yes, Monday works.");
  await expect(message(implementer, "Yes, Monday works.")).toBeVisible();
  await expect(message(originator, "Yes, Monday works.")).toBeVisible({ timeout: 3_000 });

  // The same order for both, and neither page was reloaded.
  for (const page of [originator, implementer]) {
    await expect(messageList(page).locator(".chat-text")).toHaveText([
      "Can you start on Monday?",
      "Yes, Monday works.",
    ]);
    await expectSameDocument(page);
  }
});

test("across app instances: a message sent through a second instance appears on the first within 3 seconds, and back", async ({
  cast,
  mocApi,
  openAs,
}) => {
  test.skip(!jsEnabled(), "live updates need JavaScript");
  // Starting a second server (tsx, migrations, workers) takes a while on a busy machine.
  test.setTimeout(150_000);
  const second = await startSecondInstance();
  try {
    const moc = await mocApi.create(cast);
    const first = await openAs(cast.originator);
    // The session cookie belongs to the host, 127.0.0.1, so it goes to the second port too.
    const other = await openAs(cast.implementer);
    await open(first, `/mocs/${moc._id}`);
    await open(other, `${second.url}/mocs/${moc._id}`);
    expect(new URL(other.url()).origin).toBe(second.url);
    for (const page of [first, other]) await markDocument(page);

    await send(other, "Sent through the second instance");
    await expect(message(other, "Sent through the second instance")).toBeVisible();
    await expect(message(first, "Sent through the second instance")).toBeVisible({ timeout: 3_000 });

    await send(first, "Answered through the first");
    await expect(message(first, "Answered through the first")).toBeVisible();
    await expect(message(other, "Answered through the first")).toBeVisible({ timeout: 3_000 });
    for (const page of [first, other]) await expectSameDocument(page);
  } finally {
    await second.stop();
  }
});

test("markup in a message is shown as text and never runs", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const payload = `<script>window.__chatXss = "script"</script><img src=x onerror="window.__chatXss = 'img'; alert(1)"><b>bold?</b>`;
  const writer = await openAs(cast.originator);
  const reader = await openAs(cast.implementer);
  let dialogs = 0;
  for (const page of [writer, reader]) {
    page.on("dialog", (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
  }
  await open(writer, `/mocs/${moc._id}`);
  await open(reader, `/mocs/${moc._id}`);
  await send(writer, payload);
  await expect(message(writer, payload)).toBeVisible();
  // With JavaScript it reaches the reader through the poll, without it through a reload.
  if (!jsEnabled()) await reader.reload();
  await expect(message(reader, payload)).toBeVisible();
  await writer.reload();
  for (const page of [writer, reader]) {
    await expect(message(page, payload).locator(".chat-text")).toHaveText(payload);
    await expect(messageList(page).locator("script, img, b")).toHaveCount(0);
    if (jsEnabled()) {
      expect(await page.evaluate(() => (window as unknown as { __chatXss?: string }).__chatXss)).toBeUndefined();
    }
  }
  expect(dialogs).toBe(0);
});

test("a long room shows its latest 100 messages, and older ones on request", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  test.setTimeout(90_000);
  const moc = await mocApi.create(cast);
  for (let i = 1; i <= 105; i++) {
    const response = await request.post("/api/chat", {
      headers: { Authorization: `Bearer ${(i % 2 ? cast.originator : cast.implementer).token}` },
      data: { chat_id: moc.chat, message: { message: `Message ${i}` } },
    });
    expect(response.status()).toBe(200);
  }
  const page = await openAs(cast.implementer);
  await open(page, `/mocs/${moc._id}`);
  const items = messageList(page).getByRole("listitem");
  await expect(items).toHaveCount(100);
  await expect(items.first().locator(".chat-text")).toHaveText("Message 6");
  await expect(items.last().locator(".chat-text")).toHaveText("Message 105");
  if (jsEnabled()) await markDocument(page);

  await chat(page).getByRole("link", { name: "Show older messages" }).click();
  if (jsEnabled()) {
    await expect(items).toHaveCount(105);
    await expect(items.first().locator(".chat-text")).toHaveText("Message 1");
    await expect(chat(page).getByRole("link", { name: "Show older messages" })).toHaveCount(0);
    await expectSameDocument(page);
  } else {
    // The page of messages before those: the five oldest, and a way back to the latest.
    await expect(items).toHaveCount(5);
    await expect(items.first().locator(".chat-text")).toHaveText("Message 1");
    await chat(page).getByRole("link", { name: "Show the latest messages" }).click();
    await expect(items).toHaveCount(100);
    await expect(items.last().locator(".chat-text")).toHaveText("Message 105");
  }
});

pcrTest(
  "the PCR page has a chat too: the originator and an affected party talk, a position holder reads along, an outsider cannot",
  async ({ cast, openAs, createPcr }) => {
    const doc = await createPcr(cast.originator, [cast.party]);
    const party = await openAs(cast.party);
    const originator = await openAs(cast.originator);
    await open(party, `/pcrs/${doc._id}`);
    await open(originator, `/pcrs/${doc._id}`);

    await send(party, "Does this change the night orders?");
    await expect(message(party, "Does this change the night orders?")).toBeVisible();
    if (!jsEnabled()) await originator.reload();
    await expect(message(originator, "Does this change the night orders?")).toBeVisible({ timeout: 3_000 });
    await expect(message(originator, "Does this change the night orders?")).toContainText(cast.party.name);

    // A chat error stays in the chat: the signing form next to it shows none.
    await send(originator, "");
    await expect(chat(originator).getByText("Write a message")).toBeVisible();
    await expect(originator.getByRole("region", { name: "Your signature as Change Originator" })).toBeVisible();
    await expect(
      originator.getByRole("region", { name: "Your signature as Change Originator" }).locator(".field-errors"),
    ).toHaveCount(0);

    await send(originator, "Yes: section 3 of the night orders.");
    await expect(message(originator, "Yes: section 3 of the night orders.")).toBeVisible();

    const holder = await openAs(cast.holders["VP Fleet Management"]);
    await open(holder, `/pcrs/${doc._id}`);
    await expect(messageList(holder).locator(".chat-text")).toHaveText([
      "Does this change the night orders?",
      "Yes: section 3 of the night orders.",
    ]);

    const outsider = await openAs(cast.outsider);
    const refused = await outsider.goto(`/pcrs/${doc._id}`);
    expect(refused?.status()).toBe(403);
    await expect(outsider.getByText("Does this change the night orders?")).toHaveCount(0);
  },
);
