/** What the chat browser tests share: finding the panel and its messages, sending, opening a record. */
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, ready, type Person } from "./moc-fixtures";

export const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const chat = (page: Page) => page.getByRole("region", { name: "Chat", exact: true });
export const messageList = (page: Page) => chat(page).getByRole("list", { name: "Messages" });
/** The message whose text is exactly `text`. */
export const message = (page: Page, text: string) =>
  messageList(page)
    .getByRole("listitem")
    .filter({ has: page.locator(".chat-text", { hasText: new RegExp(`^${escapeRegExp(text)}$`) }) });
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export async function send(page: Page, text: string) {
  await chat(page).getByLabel("Message", { exact: true }).fill(text);
  await chat(page).getByRole("button", { name: "Send", exact: true }).click();
}

/** Marks the loaded document, so a later check can tell that the page was not reloaded. */
export async function markDocument(page: Page) {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
}
export async function expectSameDocument(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
}

export async function open(page: Page, path: string) {
  await page.goto(path);
  await ready(page);
  await expect(chat(page)).toBeVisible();
}

export async function roomMessages(request: APIRequestContext, who: Person, chatId: string): Promise<string[]> {
  const response = await request.get(`/api/chat?chat_id=${chatId}`, {
    headers: { Authorization: `Bearer ${who.token}` },
  });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { chatData: { messages: { message: string }[] } };
  return body.chatData.messages.map((m) => m.message);
}
