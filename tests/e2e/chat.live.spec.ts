/**
 * Live updates of the chat panel, which need JavaScript (the no-js project leaves *.live.spec.ts
 * out; without JavaScript a reload shows new messages, tested in chat.spec.ts): a message from
 * someone else shows within 3 seconds without a reload, also through another app instance.
 */
import { expect, test } from "./moc-fixtures";
import { chat, expectSameDocument, markDocument, message, messageList, open, send } from "./chat-helpers";
import { startSecondInstance } from "./second-instance";

test("with JavaScript, a message from one person appears for another within 3 seconds, without a reload", async ({
  cast,
  mocApi,
  openAs,
}) => {
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
