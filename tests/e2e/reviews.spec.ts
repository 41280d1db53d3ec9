/**
 * Year-end reviews in the browser, with JavaScript on and off: an HSEQ user writes a review with
 * two sections, participants and two actions (rows added with the form's own buttons), sees the
 * MOC summary as numbers and charts, edits it, opens the print view; a standard user reads it
 * without any way to change it and gets the 403 page on the forms.
 *
 * Other specs create MOCs in the same year on the same server, so the summary is checked against
 * the review's stored numbers (exact) and against the MOCs this test made (at least).
 */
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { implementerForm, verifierForm } from "../helpers/moc";
import { expect, jsEnabled, ready, test, type Cast, type MocApi } from "./moc-fixtures";

const YEAR = new Date().getUTCFullYear();
const PAST = `${YEAR - 1}-01-15`;
const FUTURE = `${YEAR + 1}-06-30`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- review documents as /api returns them
type Review = any;

async function readReview(request: APIRequestContext, token: string, id: string): Promise<Review> {
  const res = await request.get(`/api/year-end-review?id=${id}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { data: Review }).data;
}

/** One open, one completed and one declined MOC, made through /api this year. */
async function threeMocs(cast: Cast, mocApi: MocApi) {
  await mocApi.create(cast);
  const verifying = await mocApi.createAt(cast, "verifier");
  await mocApi.submit("/api/submit/verifier", cast.hseq, { moc_id: verifying._id, verifier_form: verifierForm() });
  const toDecline = await mocApi.create(cast);
  await mocApi.submit("/api/submit/implementer", cast.implementer, {
    moc_id: toDecline._id,
    implementer_form: implementerForm(cast.approver, cast.hseq, {
      "necessary-justified": { value: "no" },
      "decline-reason": { value: "Not needed after all" },
    }),
  });
}

/** A rich text field inside `scope`: the editor with JavaScript, the textarea without. */
async function fillRich(scope: Locator, label: string, text: string) {
  if (jsEnabled()) await expect(scope.getByRole("toolbar", { name: `${label} formatting` })).toBeVisible();
  await scope.getByRole("textbox", { name: label, exact: true }).fill(text);
}

const group = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
const stat = (page: Page, label: string) =>
  page.locator(".review-stats .stat").filter({ has: page.getByRole("term").getByText(label, { exact: true }) });

test("an HSEQ user writes, edits and prints a review; a standard user only reads it", async ({
  cast,
  mocApi,
  openAs,
  request,
  adminToken,
}) => {
  test.setTimeout(180_000);
  await threeMocs(cast, mocApi);
  const tag = randomBytes(3).toString("hex");
  const title = `Review ${tag}`;

  // The writer (department HSEQ) starts from the list.
  const page = await openAs(cast.hseq);
  await page.goto("/reviews");
  await page.getByRole("link", { name: "New review" }).click();
  await page.waitForURL("**/reviews/new");
  await ready(page);
  await expect(page.getByLabel("Year")).toHaveValue(String(YEAR));
  await page.getByLabel("Title").fill(title);
  const participants = page.getByRole("group", { name: "Participants" });
  await participants.getByRole("checkbox", { name: new RegExp(`^${cast.originator.name}`) }).check();
  await participants.getByRole("checkbox", { name: new RegExp(`^${cast.implementer.name}`) }).check();

  // Section 1 is there to start with; section 2 is added with the form's button.
  await group(page, "Section 1").getByRole("textbox", { name: "Heading" }).fill("Overview");
  await fillRich(group(page, "Section 1"), "Text", "A quiet year for changes");
  await page.getByRole("button", { name: "Add a section" }).click();
  await ready(page);
  await expect(group(page, "Section 1").getByRole("textbox", { name: "Heading" })).toHaveValue("Overview");
  await group(page, "Section 2").getByRole("textbox", { name: "Heading" }).fill("Lessons learned");
  await fillRich(group(page, "Section 2"), "Text", "Plan verifications earlier");
  await fillRich(page.locator("form"), "Improvements", "Shorter approval times");

  // Two actions, each added with "Add an action"; what was typed survives each round trip.
  await page.getByRole("button", { name: "Add an action" }).click();
  await ready(page);
  const first = group(page, "Action 1");
  await first.getByLabel("Description").fill("Audit the overdue MOCs");
  await first.getByLabel("Owner").selectOption(cast.originator._id);
  await first.getByLabel("Due date").fill(PAST);
  await page.getByRole("button", { name: "Add an action" }).click();
  await ready(page);
  await expect(group(page, "Action 1").getByLabel("Description")).toHaveValue("Audit the overdue MOCs");
  await expect(group(page, "Action 1").getByLabel("Owner")).toHaveValue(cast.originator._id);
  await expect(participants.getByRole("checkbox", { name: new RegExp(`^${cast.implementer.name}`) })).toBeChecked();
  const second = group(page, "Action 2");
  await second.getByLabel("Description").fill("Train the new verifiers");
  await second.getByLabel("Owner").selectOption(cast.implementer._id);
  await second.getByLabel("Due date").fill(FUTURE);
  await second.getByLabel("Status").selectOption("in_progress");
  await page.getByRole("button", { name: "Save review" }).click();

  await page.waitForURL(/\/reviews\/[0-9a-f-]{36}$/);
  await ready(page);
  const id = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.locator(".flash")).toContainText(`The ${YEAR} review is saved.`);
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();

  // The summary: the stored numbers on the page, and at least the three MOCs made above.
  const stored = await readReview(request, adminToken, id);
  const summary = stored.moc_summary;
  expect(summary.total).toBeGreaterThanOrEqual(3);
  expect(summary.completed).toBeGreaterThanOrEqual(1);
  expect(summary.declined).toBeGreaterThanOrEqual(1);
  expect(summary.open).toBeGreaterThanOrEqual(1);
  await expect(stat(page, "MOCs raised").getByRole("definition")).toHaveText(String(summary.total));
  await expect(stat(page, "Completed").getByRole("definition")).toHaveText(String(summary.completed));
  await expect(stat(page, "Declined").getByRole("definition")).toHaveText(String(summary.declined));
  await expect(stat(page, "Open").getByRole("definition")).toHaveText(String(summary.open));
  await expect(page.getByRole("img", { name: new RegExp(`^MOCs by status, ${YEAR}`) })).toBeVisible();
  await expect(page.getByRole("img", { name: new RegExp(`^MOCs by department, ${YEAR}`) })).toBeVisible();
  const byStatus = page.getByRole("table", { name: `MOCs by status, ${YEAR}` });
  await expect(byStatus.getByRole("row", { name: /^Completed/ }).getByRole("cell")).toHaveText(
    String(summary.by_status.completed),
  );
  await expect(byStatus.getByRole("row", { name: /^Declined/ }).getByRole("cell")).toHaveText(
    String(summary.by_status.decline),
  );
  const byDepartment = page.getByRole("table", { name: `MOCs by department, ${YEAR}` });
  await expect(byDepartment.getByRole("row", { name: /^Engineering/ }).getByRole("cell")).toHaveText(
    String(summary.by_department.engineering),
  );
  expect(summary.by_department.engineering).toBeGreaterThanOrEqual(3);

  // Sections, participants and the actions table (the past-due open action marked overdue).
  await expect(page.getByRole("heading", { level: 2, name: "Overview" })).toBeVisible();
  await expect(page.getByText("A quiet year for changes")).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Lessons learned" })).toBeVisible();
  await expect(page.getByText("Plan verifications earlier")).toBeVisible();
  await expect(page.getByText("Shorter approval times")).toBeVisible();
  const people = page.getByRole("region", { name: "Participants" });
  await expect(people).toContainText(cast.originator.name);
  await expect(people).toContainText(cast.implementer.name);
  const actions = page.getByRole("table", { name: "Follow-up actions" });
  const audit = actions.getByRole("row").filter({ hasText: "Audit the overdue MOCs" });
  await expect(audit).toContainText(cast.originator.name);
  await expect(audit).toContainText("Overdue");
  await expect(audit).toContainText("Open");
  const train = actions.getByRole("row").filter({ hasText: "Train the new verifiers" });
  await expect(train).toContainText(cast.implementer.name);
  await expect(train).toContainText("In progress");
  await expect(train).not.toContainText("Overdue");
  expect(stored.actions).toEqual([
    expect.objectContaining({ description: "Audit the overdue MOCs", due: PAST, status: "open" }),
    expect.objectContaining({ description: "Train the new verifiers", due: FUTURE, status: "in_progress" }),
  ]);
  expect(stored.participants.map((p: { _id: string }) => p._id).sort()).toEqual(
    [cast.originator._id, cast.implementer._id].sort(),
  );

  // Edit: a new title, section 1 removed, the overdue action done, the summary counted again.
  await mocApi.create(cast);
  await page.getByRole("link", { name: "Edit" }).click();
  await page.waitForURL(`**/reviews/${id}/edit`);
  await ready(page);
  await page.getByLabel("Title").fill(`${title} (final)`);
  await page.getByRole("button", { name: "Remove section 1" }).click();
  await ready(page);
  await expect(group(page, "Section 2")).toHaveCount(0);
  await expect(group(page, "Section 1").getByRole("textbox", { name: "Heading" })).toHaveValue("Lessons learned");
  await group(page, "Action 1").getByLabel("Status").selectOption("done");
  await page.getByLabel("Count the year's MOCs again").check();
  await page.getByRole("button", { name: "Save review" }).click();
  await page.waitForURL(new RegExp(`/reviews/${id}$`));
  await expect(page.locator(".flash")).toContainText("The review is saved.");
  await expect(page.getByRole("heading", { level: 1, name: `${title} (final)` })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Overview" })).toHaveCount(0);
  await expect(page.getByRole("heading", { level: 2, name: "Lessons learned" })).toBeVisible();
  const done = page.getByRole("table", { name: "Follow-up actions" }).getByRole("row").filter({ hasText: "Audit" });
  await expect(done).toContainText("Done");
  await expect(done).not.toContainText("Overdue");
  const recounted = (await readReview(request, adminToken, id)).moc_summary;
  expect(recounted.total).toBeGreaterThanOrEqual(4);
  expect(Date.parse(recounted.computed_at)).toBeGreaterThan(Date.parse(summary.computed_at));
  await expect(stat(page, "MOCs raised").getByRole("definition")).toHaveText(String(recounted.total));

  // The "Recount MOC summary" button on the page does the same without opening the form.
  await page.getByRole("button", { name: "Recount MOC summary" }).click();
  await expect(page.locator(".flash")).toContainText("The MOC summary is counted again");

  // The print view: the same document with its data tables shown; navigation and buttons hidden in print.
  await page.getByRole("link", { name: "Print view" }).click();
  await page.waitForURL(`**/reviews/${id}/print`);
  await ready(page);
  await expect(page.getByRole("heading", { level: 1, name: `${title} (final)` })).toBeVisible();
  await expect(page.getByRole("img", { name: new RegExp(`^MOCs by status, ${YEAR}`) })).toBeVisible();
  await expect(page.getByRole("table", { name: `MOCs by status, ${YEAR}` })).toBeVisible();
  await expect(page.getByRole("table", { name: `MOCs by department, ${YEAR}` })).toBeVisible();
  if (jsEnabled()) await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
  else await expect(page.getByText("Print this page with your browser's Print command")).toBeVisible();
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expect(page.getByRole("link", { name: "← Back to the review" })).toBeHidden();
  await expect(page.getByRole("heading", { level: 1, name: `${title} (final)` })).toBeVisible();
  await expect(page.getByRole("table", { name: "Follow-up actions" })).toBeVisible();

  // A standard user reads everything, changes nothing.
  const reader = await openAs(cast.originator);
  await reader.goto("/reviews");
  await expect(reader.getByRole("link", { name: `${title} (final)` })).toBeVisible();
  await expect(reader.getByRole("link", { name: "New review" })).toHaveCount(0);
  await reader.getByRole("link", { name: `${title} (final)` }).click();
  await reader.waitForURL(new RegExp(`/reviews/${id}$`));
  await expect(reader.getByRole("heading", { level: 1, name: `${title} (final)` })).toBeVisible();
  await expect(reader.getByRole("img", { name: new RegExp(`^MOCs by department, ${YEAR}`) })).toBeVisible();
  await expect(reader.getByRole("link", { name: "Print view" })).toBeVisible();
  await expect(reader.getByRole("link", { name: "Edit" })).toHaveCount(0);
  await expect(reader.getByRole("button", { name: "Recount MOC summary" })).toHaveCount(0);
  for (const path of ["/reviews/new", `/reviews/${id}/edit`]) {
    const refused = await reader.goto(path);
    expect(refused?.status(), path).toBe(403);
    await expect(reader.getByRole("heading", { name: "Not allowed" })).toBeVisible();
    await expect(reader.getByText("Only admins and the HSEQ department can write year-end reviews.")).toBeVisible();
  }
});

test("a review with mistakes is not saved; the errors show next to the fields", async ({ cast, openAs, request }) => {
  const page = await openAs(cast.hseq);
  await page.goto("/reviews/new");
  await ready(page);
  const title = `Unsaved ${randomBytes(3).toString("hex")}`;
  await page.getByLabel("Year").fill("1800");
  await page.getByLabel("Title").fill(title);
  await group(page, "Section 1").getByRole("textbox", { name: "Heading" }).fill("");
  await page.getByRole("button", { name: "Add an action" }).click();
  await ready(page);
  await group(page, "Action 1").getByLabel("Description").fill("No owner, no date");
  // Enter in a text box saves (the form's default button), rather than pressing the first "Remove".
  await page.getByLabel("Title").press("Enter");

  await expect(page.getByText("Year must be between 1900 and 2200")).toBeVisible();
  await expect(group(page, "Section 1").getByText("Heading is required")).toBeVisible();
  await expect(group(page, "Action 1").getByText("Choose an owner")).toBeVisible();
  await expect(group(page, "Action 1").getByText("Due date is required")).toBeVisible();
  await expect(page.getByLabel("Title")).toHaveValue(title);
  await expect(group(page, "Section 1")).toBeVisible();
  await expect(group(page, "Action 1").getByLabel("Description")).toHaveValue("No owner, no date");
  await expect(page).toHaveURL(/\/reviews\/new$/);

  const list = await request.get("/api/year-end-review", {
    headers: { Authorization: `Bearer ${cast.hseq.token}` },
  });
  const all = ((await list.json()) as { data: { title: string }[] }).data;
  expect(all.map((r) => r.title)).not.toContain(title);
});
