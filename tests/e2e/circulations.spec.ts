/**
 * Issue 41 in the browser, with JavaScript on and off: the originator of a finished PCR circulates
 * it from the record's page to a vessel (a missing note is shown next to its field), a crew member
 * of that vessel opens the circulation, reads the record's print view and acknowledges "read and
 * understood" with a question; the tracking then shows one of one acknowledged and the question,
 * and the record's Circulation section its figures. Screenshots at 375 px go under /tmp.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { assignToVessel, day, finishPcr, fitsWidth, makeVessel } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test } from "./pcr-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/circulations-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test("a finished PCR is circulated from its page and a crew member acknowledges it", async ({
  cast,
  createPcr,
  createUser,
  openAs,
  request,
  adminToken,
}) => {
  test.setTimeout(180_000);
  const tag = randomBytes(3).toString("hex");
  const vesselName = `MV Polaris ${tag}`;
  const vesselId = await makeVessel(request, adminToken, vesselName);
  const made = await createUser({ name: `Ann Lee ${tag}`, department: "fleet" });
  const crew = { ...made, token: made.token! };
  await assignToVessel(request, adminToken, vesselId, crew._id);

  const { originator, holders } = cast;
  const doc = await createPcr(originator);
  await finishPcr(request, doc, [originator, ...Object.values(holders)]);

  // The originator circulates it from the PCR's page.
  const author = await openAs(originator);
  await author.setViewportSize(PHONE);
  await author.goto(`/pcrs/${doc._id}`);
  await ready(author);
  const section = author.getByRole("region", { name: "Circulation" });
  await expect(section).toContainText("Not circulated for acknowledgement yet.");
  await section.getByRole("link", { name: "Circulate for acknowledgement" }).click();
  await expect(author.getByRole("heading", { name: "Circulate for acknowledgement" })).toBeVisible();
  await ready(author);
  await author.getByRole("checkbox", { name: vesselName }).check();
  await author.getByLabel("Due date").fill(day(10));
  // Without a note: the error is next to the field, the rest kept.
  await author.getByRole("button", { name: "Circulate" }).click();
  const note = author.getByLabel(/What changed/);
  await expect(author.getByText("The note of what changed is required")).toBeVisible();
  await expect(author.getByRole("checkbox", { name: vesselName })).toBeChecked();
  await fitsWidth(author);
  await shot(author, "form-error");
  await note.fill("Mooring: a toolbox talk before each operation, led by the officer in charge.");
  await author.getByRole("button", { name: "Circulate" }).click();
  await expect(author).toHaveURL(/\/circulations\/[0-9a-f-]{36}$/);
  const circulationUrl = new URL(author.url()).pathname;
  await expect(author.getByText("was circulated for acknowledgement")).toBeVisible();
  await expect(author.getByText("0 of 1 acknowledged · 1 waiting")).toBeVisible();
  await expect(author.getByRole("region", { name: "Your acknowledgement" })).toHaveCount(0);

  // The crew member reads it and acknowledges with a question.
  const reader = await openAs(crew);
  await reader.setViewportSize(PHONE);
  await reader.goto(circulationUrl);
  await ready(reader);
  await expect(reader.getByText("Mooring: a toolbox talk before each operation")).toBeVisible();
  const mine = reader.getByRole("region", { name: "Your acknowledgement" });
  const printLink = mine.getByRole("link", { name: /PCR/ });
  await expect(printLink).toHaveAttribute("href", `/pcrs/${doc._id}/print`);
  await fitsWidth(reader);
  await shot(reader, "to-acknowledge");
  await reader.goto(`/pcrs/${doc._id}/print`);
  await expect(reader.getByText("Add a second lookout in restricted visibility")).toBeVisible();
  await reader.goto(circulationUrl);
  await ready(reader);
  await mine.getByLabel(/A question or comment/).fill("Does this apply at anchor too?");
  await mine.getByRole("button", { name: "I have read and understood this change" }).click();
  await expect(reader.getByText("Thank you: your acknowledgement is recorded.")).toBeVisible();
  await expect(mine).toContainText("You acknowledged on");
  await expect(mine.getByRole("button")).toHaveCount(0);
  await expect(reader.getByText("1 of 1 acknowledged")).toBeVisible();
  const questions = reader.getByRole("region", { name: "Questions and comments" });
  await expect(questions).toContainText("Does this apply at anchor too?");
  await expect(reader.getByRole("region", { name: /People/ })).toContainText("Acknowledged");
  await fitsWidth(reader);
  await shot(reader, "acknowledged");

  // Answering again over /api changes nothing.
  const again = await request.post("/api/acknowledge", {
    headers: { Authorization: `Bearer ${crew.token}` },
    data: { circulation_id: circulationUrl.split("/").pop() },
  });
  expect(again.status()).toBe(200);
  expect(((await again.json()) as { data: { created: boolean } }).data.created).toBe(false);

  // The record's section shows the figures.
  await author.goto(`/pcrs/${doc._id}`);
  await expect(author.getByRole("region", { name: "Circulation" })).toContainText("1 of 1 acknowledged");
  await author.setViewportSize({ width: 1280, height: 900 });
  await author.goto(circulationUrl);
  await shot(author, "tracking-wide");
});
