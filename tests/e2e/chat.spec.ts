/**
 * The chat panel on the MOC and PCR pages. Without JavaScript the form posts and the page comes
 * back with the message (post/redirect/get); with JavaScript it is sent without a reload and the
 * panel polls, so a message from someone else shows within 3 seconds, also when it was sent
 * through another app instance on the same database. Messages are text: markup never runs.
 */
import { expect, jsEnabled, test } from "./moc-fixtures";
import { test as pcrTest } from "./pcr-fixtures";
import {
  chat,
  expectSameDocument,
  ISO_Z,
  markDocument,
  message,
  messageList,
  open,
  roomMessages,
  send,
} from "./chat-helpers";

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

test("markup in a message is shown as text and never runs", { tag: "@once" }, async ({ cast, mocApi, openAs }) => {
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
