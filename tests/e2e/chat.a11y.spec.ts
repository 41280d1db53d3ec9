import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./moc-fixtures";
import { test as pcrTest } from "./pcr-fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

// The chat panel under axe (JavaScript project only, see axe.ts): with messages from two people,
// with an error next to its field, and on the PCR page.

test("the chat panel on the MOC page passes an accessibility scan, with messages and with an error", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  const moc = await mocApi.create(cast);
  for (const [who, text] of [
    [cast.originator, "Parts are ordered."],
    [cast.implementer, "Thanks. I will book the yard for week 12."],
    [cast.originator, "A long message, to wrap on a phone: " + "lorem ipsum ".repeat(40)],
  ] as const) {
    const response = await request.post("/api/chat", {
      headers: { Authorization: `Bearer ${who.token}` },
      data: { chat_id: moc.chat, message: { message: text } },
    });
    expect(response.status()).toBe(200);
  }
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  const chat = page.getByRole("region", { name: "Chat", exact: true });
  await expect(chat.getByRole("list", { name: "Messages" }).getByRole("listitem")).toHaveCount(3);
  await expectNoSeriousA11yViolations(page);

  await chat.getByRole("button", { name: "Send", exact: true }).click();
  await expect(chat.getByText("Write a message")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // On a phone.
  await page.setViewportSize({ width: 375, height: 740 });
  await expectNoSeriousA11yViolations(page);
});

pcrTest("the chat panel on the PCR page passes an accessibility scan", async ({ cast, openAs, createPcr }) => {
  const doc = await createPcr(cast.originator, [cast.party]);
  const page = await openAs(cast.party);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  const chat = page.getByRole("region", { name: "Chat", exact: true });
  await expect(chat.getByText("No messages yet")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await chat.getByLabel("Message", { exact: true }).fill("Which watch does this affect?");
  await chat.getByRole("button", { name: "Send", exact: true }).click();
  await expect(chat.getByRole("list", { name: "Messages" }).getByRole("listitem")).toHaveCount(1);
  await expectNoSeriousA11yViolations(page);
});
