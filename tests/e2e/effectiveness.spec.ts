/**
 * Issue 42 in the browser, with JavaScript on and off, at 375 px: the HSEQ user closes a MOC on the
 * verifier page with the review date prefilled (90 days on); the review comes due (moved to today),
 * shows in their "Waiting on me", and they answer it "Not effective" (without a comment: the error
 * by the field), raise the follow-up MOC from it (Part A prefilled: "Follow-up: ..." and the
 * comment as the reason), and see the two MOCs linked both ways. Screenshots go under /tmp.
 */
import type { Page } from "@playwright/test";
import postgres from "postgres";
import { fitsWidth } from "./circulation-fixtures";
import { answerAllYes, expect, fillRichText, jsEnabled, ready, test } from "./moc-fixtures";
import { e2eDatabaseUrl } from "./second-instance";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/effectiveness-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

test("HSEQ answers a due review not effective and raises the follow-up MOC from it", async ({
  cast,
  mocApi,
  openAs,
}) => {
  test.setTimeout(180_000);
  const moc = await mocApi.createAt(cast, "verifier");
  const hseq = await openAs(cast.hseq); // no verifier named: the assigned HSEQ user verifies
  await hseq.setViewportSize(PHONE);

  // Closing: the review date is prefilled with the default, 90 days on for a permanent change.
  await hseq.goto(`/mocs/${moc._id}/verifier`);
  await ready(hseq);
  await expect(hseq.getByLabel("Effectiveness review date")).toHaveValue(inDays(90));
  await answerAllYes(hseq);
  await hseq.getByRole("button", { name: "Submit verification" }).click();
  await expect(hseq.getByText(`MOC ${moc.serial_num} is verified and closed.`)).toBeVisible();
  await hseq.goto(`/mocs/${moc._id}`);
  const panel = hseq.getByRole("region", { name: "Effectiveness review" });
  await expect(panel).toContainText("Effectiveness review due");
  await expect(panel).toContainText("Waiting for its date");

  // The day comes (moved to today, as if closed 90 days ago).
  const sql = postgres(await e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    await sql`update effectiveness_reviews set due_on = ${inDays(0)}::date where moc_id = ${moc._id}`;
  } finally {
    await sql.end();
  }

  // It waits on the HSEQ user; they answer it.
  await hseq.goto("/");
  const waiting = hseq.getByRole("region", { name: "Waiting on me" });
  await waiting.getByRole("link", { name: new RegExp(`MOC ${moc.serial_num}.*effectiveness review`) }).click();
  await expect(hseq).toHaveURL(new RegExp(`/mocs/${moc._id}/effectiveness$`));
  await ready(hseq);
  await hseq.getByRole("group", { name: "Was the change effective?" }).getByLabel("Not effective").check();
  await hseq.getByRole("button", { name: "Answer the review" }).click();
  await expect(hseq.getByText(/a comment is required when the change was partly or not effective/)).toBeVisible();
  await fitsWidth(hseq);
  await shot(hseq, "review-error");
  await hseq.getByRole("group", { name: "Was the change effective?" }).getByLabel("Not effective").check();
  await hseq.getByLabel("Comment").fill("The overflow alarm still sounds late on tank 2");
  await hseq.getByRole("button", { name: "Answer the review" }).click();
  await expect(hseq.getByText("The effectiveness review is answered; it is in the MOC's history.")).toBeVisible();
  await expect(hseq.getByText("The overflow alarm still sounds late on tank 2")).toBeVisible();
  await fitsWidth(hseq);
  await shot(hseq, "review-answered");

  // The follow-up MOC, Part A prefilled from the review.
  await hseq.getByRole("link", { name: "Raise a follow-up MOC" }).click();
  await expect(hseq).toHaveURL(/\/mocs\/new\?followUp=moc/);
  await ready(hseq);
  await expect(hseq.getByText(`A follow-up of MOC ${moc.serial_num}`)).toBeVisible();
  await expect(hseq.getByLabel("Title")).toHaveValue(`Follow-up: MOC ${moc.serial_num}`);
  await expect(hseq.getByLabel("Reason for change")).toHaveValue(
    `Follow-up of MOC ${moc.serial_num}, its effectiveness review (not effective): The overflow alarm still sounds late on tank 2`,
  );
  await fitsWidth(hseq);
  await shot(hseq, "follow-up-part-a");
  await hseq.getByLabel("Vessel or scope").selectOption({ label: "Fleet-wide" });
  await hseq.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await hseq.getByLabel("Department of change").selectOption({ label: "Engineering" });
  await fillRichText(hseq, "Description of change", "Move the alarm sensor to the tank top");
  await hseq.getByRole("group", { name: "Affected departments" }).getByLabel("Engineering").check();
  await hseq.getByRole("button", { name: "Submit MOC" }).click();
  await expect(hseq).toHaveURL(/\/mocs\/[0-9a-f-]{36}$/);
  await expect(hseq.getByText(/is raised; the implementer has been notified/)).toBeVisible();
  const links = hseq.getByRole("region", { name: "Linked records" });
  await expect(links).toContainText(`Follow-up of MOC ${moc.serial_num}`);
  await fitsWidth(hseq);
  await shot(hseq, "follow-up-moc");

  // The original reads the link the other way, and the review's answer.
  await hseq.goto(`/mocs/${moc._id}`);
  await expect(hseq.getByRole("region", { name: "Linked records" })).toContainText("Followed up by MOC");
  const answered = hseq.getByRole("region", { name: "Effectiveness review" });
  await expect(answered).toContainText("Not effective");
  await expect(answered.getByRole("link", { name: "Raise a follow-up MOC" })).toBeVisible();
  await fitsWidth(hseq);
  await shot(hseq, "original");
  await answered.screenshot({ path: `/tmp/effectiveness-original-panel-${jsEnabled() ? "js" : "no-js"}.png` });
  await hseq
    .getByRole("region", { name: "Linked records" })
    .screenshot({ path: `/tmp/effectiveness-original-links-${jsEnabled() ? "js" : "no-js"}.png` });
});
