import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./moc-fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

test("the review list, form, read view and print view pass an accessibility scan", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  // Several full-page scans: more than the default 30 s on a busy two-core machine.
  await mocApi.create(cast);
  const year = new Date().getUTCFullYear();
  const created = await request.post("/api/year-end-review", {
    headers: { Authorization: `Bearer ${cast.hseq.token}` },
    data: {
      year,
      title: `Accessible review ${year}`,
      participants: [cast.originator._id, cast.implementer._id],
      sections: [{ heading: "Overview", body: "<p>A <strong>short</strong> year.</p>" }],
      effectiveness: "<p>Effective</p>",
      actions: [
        { description: "Overdue follow-up", owner: cast.originator._id, due: `${year - 1}-02-01` },
        {
          description: "Later follow-up",
          owner: cast.implementer._id,
          due: `${year + 1}-02-01`,
          status: "in_progress",
        },
      ],
    },
  });
  expect(created.status()).toBe(200);
  const id = ((await created.json()) as { data: { _id: string } }).data._id;
  const page = await openAs(cast.hseq);

  await page.goto("/reviews");
  await expect(page.getByRole("link", { name: `Accessible review ${year}` })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The new-review form with a section and an action row open.
  await page.goto("/reviews/new");
  await ready(page);
  await page.getByRole("button", { name: "Add an action" }).click();
  await expect(page.getByRole("group", { name: "Action 1" })).toBeVisible();
  await expect(page.getByRole("toolbar", { name: "Improvements formatting" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The same form after a refused save: the errors are tied to their fields.
  await page.getByLabel("Title").fill("");
  await page.getByRole("button", { name: "Save review" }).click();
  await expect(page.getByText("Title is required")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The read view with both charts and the overdue action.
  await page.goto(`/reviews/${id}`);
  await ready(page);
  await expect(page.getByRole("img", { name: new RegExp(`^MOCs by status, ${year}`) })).toBeVisible();
  await expect(page.getByText("Overdue", { exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto(`/reviews/${id}/edit`);
  await ready(page);
  await expectNoSeriousA11yViolations(page);

  await page.goto(`/reviews/${id}/print`);
  await ready(page);
  await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
