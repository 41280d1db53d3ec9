/**
 * Accessibility scans of the archive pages: the list with records, filters and writer controls,
 * a record, the form with errors shown, the delete confirmation, and the import page with a
 * report of rejected rows and with a file ready to import.
 */
import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./archive-fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

test("the archive pages pass an accessibility scan", async ({ openAs, writer, addRecord, tag }) => {
  // Seven full-page scans: more than the default 30 s on a busy two-core machine.
  const doc = await addRecord("moc", {
    serial_num: `4-2014-${tag}`,
    title: `Steering gear ${tag}`,
    department: "engineering",
    date_closed: "2014-04-01",
    attachments: ["https://files.example.com/steering.pdf"],
    notes: "Two\nlines",
  });
  await addRecord("pcr", { serial_num: `4-2014-${tag}`, title: `Bridge watch ${tag}` });
  const page = await openAs(writer);

  await page.goto(`/archive/mocs?q=${tag}`);
  await ready(page);
  await expect(page.getByRole("link", { name: `4-2014-${tag}`, exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto(`/archive/pcrs?q=${tag}&sort=serial`);
  await ready(page);
  await expect(page.getByRole("link", { name: `4-2014-${tag}`, exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto(`/archive/mocs/${doc._id}`);
  await ready(page);
  await expect(page.getByRole("link", { name: /steering\.pdf/ })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto("/archive/mocs/new");
  await ready(page);
  await page.getByLabel("Serial number").fill("12 <2014>");
  await page.getByLabel("Title").fill("Steering gear");
  await page.getByLabel("Originator").fill("Jan");
  await page.getByLabel("Date raised").fill("2014-03-02");
  await page.getByLabel("Date closed").fill("2014-03-01");
  await page.getByRole("button", { name: "Add legacy MOC" }).click();
  await expect(page.getByText(/The serial number may hold letters/)).toBeVisible();
  await expect(page.getByText("The closing date cannot be before the date raised")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto(`/archive/mocs/${doc._id}/delete`);
  await ready(page);
  await expectNoSeriousA11yViolations(page);

  await page.goto("/archive/mocs/import");
  await ready(page);
  const bad = `serial_num,title,originator_name,date_raised\n5-2014-${tag},Fine,Ann,2014-01-01\n,No serial,Ann,2014-13-01\n`;
  await page.getByLabel("CSV file").setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(bad) });
  await page.getByRole("button", { name: "Check file" }).click();
  await expect(page.getByRole("heading", { name: "1 of 2 rows are rejected" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  const good = `serial_num,title,originator_name,date_raised\n6-2014-${tag},Fine,Ann,2014-01-01\n`;
  await page
    .getByLabel("CSV file")
    .setInputFiles({ name: "good.csv", mimeType: "text/csv", buffer: Buffer.from(good) });
  await page.getByRole("button", { name: "Check file" }).click();
  await expect(page.getByRole("heading", { name: "The row is valid" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
