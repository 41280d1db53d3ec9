/**
 * The legacy archive in the browser, with JavaScript on and off: search, filters and sorting on
 * the list; a writer (HSEQ) adds, edits and deletes records of both kinds through the forms; a
 * standard user reads and finds no way to write; a CSV file imports after its check, and a file
 * with bad rows gets its report and saves nothing.
 */
import type { Locator, Page } from "@playwright/test";
import { KINDS, expect, ready, test } from "./archive-fixtures";

/** The serial numbers in the list's table, top to bottom (`sorted`: in any order). */
async function expectSerials(page: Page, expected: string[], { sorted = false } = {}) {
  const cells = page.locator("table.archive-table tbody tr td:first-child");
  // With JavaScript the list changes in place after the navigation: poll until it shows the answer.
  await expect
    .poll(async () => {
      const found = await cells.allInnerTexts();
      return sorted ? [...found].sort() : found;
    })
    .toEqual(sorted ? [...expected].sort() : expected);
}

// The page's own filters (the header has a search form of its own).
const filters = (page: Page) => page.getByRole("main").getByRole("search");

async function apply(page: Page) {
  await filters(page).getByRole("button", { name: "Apply" }).click();
  await page.waitForLoadState();
}

async function fillRecord(form: Locator, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) {
    const control = form.getByLabel(label, { exact: false }).first();
    if ((await control.evaluate((el) => el.tagName)) === "SELECT") await control.selectOption(value);
    else await control.fill(value);
  }
}

test("search, filters and sorting on the legacy MOC list", async ({ openAs, reader, addRecord, tag }) => {
  await addRecord("moc", {
    serial_num: `9-2010-${tag}`,
    title: `Ballast pump ${tag}`,
    department: `Deck ${tag}`,
    date_closed: "2010-06-01",
    date_raised: "2010-05-01",
  });
  await addRecord("moc", {
    serial_num: `10-2010-${tag}`,
    title: `Anchor winch ${tag}`,
    department: "engineering",
    date_raised: "2010-07-01",
  });
  await addRecord("moc", {
    serial_num: `2-2011-${tag}`,
    title: `Crane limit ${tag}`,
    department: `Deck ${tag}`,
    date_raised: "2011-01-15",
    date_closed: "2011-03-01",
    notes: `needle ${tag}`,
  });

  const page = await openAs(reader);
  await page.goto("/archive/mocs");
  await ready(page);
  await expect(page.getByRole("heading", { level: 1, name: "Legacy MOCs" })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Archive" }).getByRole("link", { name: "Legacy MOCs" }),
  ).toHaveAttribute("aria-current", "page");

  // Search by the tag: all three, latest raised first.
  await filters(page).getByLabel("Search").fill(tag);
  await apply(page);
  await expect(page.getByText("3 records match")).toBeVisible();
  await expectSerials(page, [`2-2011-${tag}`, `10-2010-${tag}`, `9-2010-${tag}`]);

  // Sorting by clicking a column header, and again to reverse.
  await page.getByRole("link", { name: "Serial", exact: true }).click();
  await expect(page.getByRole("columnheader", { name: /Serial/ })).toHaveAttribute("aria-sort", "ascending");
  await expectSerials(page, [`9-2010-${tag}`, `10-2010-${tag}`, `2-2011-${tag}`]);
  await page.getByRole("link", { name: /^Serial/ }).click();
  await expect(page.getByRole("columnheader", { name: /Serial/ })).toHaveAttribute("aria-sort", "descending");
  await expectSerials(page, [`2-2011-${tag}`, `10-2010-${tag}`, `9-2010-${tag}`]);
  // The search is kept while sorting.
  await expect(filters(page).getByLabel("Search")).toHaveValue(tag);

  // Sorting through the form: title A to Z.
  await filters(page).getByLabel("Sort by").selectOption("title");
  await filters(page).getByLabel("Order").selectOption("asc");
  await apply(page);
  await expectSerials(page, [`10-2010-${tag}`, `9-2010-${tag}`, `2-2011-${tag}`]);

  // Filters: status, year, department; the words in the notes are searched too.
  await filters(page).getByLabel("Status").selectOption("open");
  await apply(page);
  await expectSerials(page, [`10-2010-${tag}`]);
  await expect(page.locator("tbody").getByText("Open", { exact: true })).toBeVisible();
  await filters(page).getByLabel("Status").selectOption("");
  await filters(page).getByLabel("Year raised").selectOption("2010");
  await apply(page);
  await expectSerials(page, [`10-2010-${tag}`, `9-2010-${tag}`], { sorted: true });
  await filters(page).getByLabel("Year raised").selectOption("");
  await filters(page).getByLabel("Department").selectOption(`Deck ${tag}`);
  await apply(page);
  await expectSerials(page, [`2-2011-${tag}`, `9-2010-${tag}`], { sorted: true });
  await filters(page).getByLabel("Department").selectOption("");
  await filters(page).getByLabel("Search").fill(`needle ${tag}`);
  await apply(page);
  await expectSerials(page, [`2-2011-${tag}`]);
  await filters(page).getByLabel("Search").fill(`nothing-like-this-${tag}`);
  await apply(page);
  await expect(page.getByText("No legacy MOCs match these filters.")).toBeVisible();

  // The tab to the PCRs.
  await page.getByRole("navigation", { name: "Archive" }).getByRole("link", { name: "Legacy PCRs" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Legacy PCRs" })).toBeVisible();
  await expect(filters(page).getByLabel("Department")).toHaveCount(0);
});

for (const k of KINDS) {
  test(`a writer adds, edits and deletes a ${k.label}`, async ({ openAs, writer, recordsTagged, tag }) => {
    test.setTimeout(60_000);
    const page = await openAs(writer);
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Archive" }).click();
    await page.waitForURL(/\/archive\/mocs$/);
    if (k.kind === "pcr")
      await page.getByRole("navigation", { name: "Archive" }).getByRole("link", { name: "Legacy PCRs" }).click();
    await page.getByRole("link", { name: `New ${k.label}` }).click();
    await page.waitForURL(new RegExp(`/archive/${k.segment}/new$`));
    await ready(page);
    const form = page.locator("form.card");

    // Invalid first: closed before raised, a link that is not http(s); the errors sit by their fields.
    await fillRecord(form, {
      "Serial number": `5-2014-${tag}`,
      Title: `Fire pump ${tag}`,
      Originator: "Jan de Vries",
      "Date raised": "2014-03-02",
      "Date closed": "2014-03-01",
      Status: "closed",
      Attachments: "https://files.example.com/scan.pdf\nftp://files.example.com/old.pdf",
    });
    await form.getByRole("button", { name: `Add ${k.label}` }).click();
    await expect(form.getByText("The closing date cannot be before the date raised")).toBeVisible();
    await expect(form.getByText("Link 2: An attachment must be an http:// or https:// link")).toBeVisible();
    await expect(form.getByLabel("Date closed")).toHaveAttribute("aria-invalid", "true");
    expect(await recordsTagged(k.kind, tag)).toEqual([]);

    await fillRecord(form, {
      "Date closed": "2014-04-01",
      Attachments: "https://files.example.com/scan.pdf",
      Notes: "Copied from the binder\nsecond line",
      [k.kind === "moc" ? "Description" : "Procedure"]: "Pump room, frame 42",
    });
    await form.getByRole("button", { name: `Add ${k.label}` }).click();
    await page.waitForURL(new RegExp(`/archive/${k.segment}/[0-9a-f-]{36}$`));
    await expect(page.locator(".flash")).toContainText(`${k.label.replace(/^l/, "L")} 5-2014-${tag} is saved.`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${k.label.replace(/^l/, "L")} 5-2014-${tag}`);
    await expect(page.getByRole("link", { name: /scan\.pdf/ })).toHaveAttribute(
      "href",
      "https://files.example.com/scan.pdf",
    );
    await expect(page.getByText("Copied from the binder")).toBeVisible();
    const [saved] = await recordsTagged(k.kind, tag);
    expect(saved).toMatchObject({
      title: `Fire pump ${tag}`,
      status: "closed",
      date_closed: "2014-04-01",
      notes: "Copied from the binder\nsecond line",
    });

    // A duplicate serial number is refused next to its field.
    await page.goto(`/archive/${k.segment}/new`);
    await ready(page);
    await fillRecord(page.locator("form.card"), {
      "Serial number": `5-2014-${tag}`,
      Title: "Twin",
      Originator: "X",
      "Date raised": "2014-01-01",
    });
    await page.getByRole("button", { name: `Add ${k.label}` }).click();
    await expect(page.getByText(`A ${k.label} with serial number 5-2014-${tag} already exists`)).toBeVisible();
    expect(await recordsTagged(k.kind, tag)).toHaveLength(1);

    // Edit: reopen it (no closing date) and change the title.
    await page.goto(`/archive/${k.segment}/${saved!._id}`);
    await page.getByRole("link", { name: "Edit" }).click();
    await page.waitForURL(/\/edit$/);
    await ready(page);
    const edit = page.locator("form.card");
    await expect(edit.getByLabel("Title")).toHaveValue(`Fire pump ${tag}`);
    await fillRecord(edit, { Title: `Fire pump (reopened) ${tag}`, "Date closed": "", Status: "open" });
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(new RegExp(`/archive/${k.segment}/[0-9a-f-]{36}$`));
    await expect(page.locator(".owner-line")).toContainText(`Fire pump (reopened) ${tag}`);
    await expect(page.locator(".owner-line").getByText("Open")).toBeVisible();
    expect((await recordsTagged(k.kind, tag))[0]).toMatchObject({ status: "open", date_closed: null });

    // Delete, through the confirmation page; "Keep it" first.
    await page.getByRole("link", { name: "Delete" }).click();
    await expect(page.getByRole("heading", { name: `Delete ${k.label} 5-2014-${tag}?` })).toBeVisible();
    await page.getByRole("link", { name: "Keep it" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${k.label.replace(/^l/, "L")} 5-2014-${tag}`);
    expect(await recordsTagged(k.kind, tag)).toHaveLength(1);
    await page.getByRole("link", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Delete permanently" }).click();
    await page.waitForURL(new RegExp(`/archive/${k.segment}$`));
    await expect(page.locator(".flash")).toContainText(`5-2014-${tag} was deleted.`);
    expect(await recordsTagged(k.kind, tag)).toEqual([]);
  });
}

test(
  "a standard user reads the archive but cannot change it",
  { tag: "@once" },
  async ({ openAs, reader, addRecord, tag }) => {
    const doc = await addRecord("pcr", {
      serial_num: `3-2013-${tag}`,
      title: `Galley hygiene ${tag}`,
      attachments: ["https://files.example.com/galley.pdf"],
    });
    const page = await openAs(reader);
    await page.goto(`/archive/pcrs?q=${tag}`);
    await expect(page.getByRole("link", { name: `3-2013-${tag}`, exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: /galley\.pdf/ })).toBeVisible();
    for (const name of ["New legacy PCR", "Import CSV", `Edit 3-2013-${tag}`, `Delete 3-2013-${tag}`]) {
      await expect(page.getByRole("link", { name })).toHaveCount(0);
    }
    await page.getByRole("link", { name: `3-2013-${tag}`, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Legacy PCR 3-2013-${tag}`);
    await expect(page.getByRole("link", { name: "Edit" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Delete" })).toHaveCount(0);

    for (const path of [
      "/archive/pcrs/new",
      "/archive/mocs/import",
      `/archive/pcrs/${doc._id}/edit`,
      `/archive/pcrs/${doc._id}/delete`,
    ]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
      await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
    }
    const missing = await page.goto("/archive/pcrs/00000000-0000-4000-8000-000000000000");
    expect(missing?.status()).toBe(404);
    expect((await page.goto("/archive/nothing"))?.status()).toBe(404);
  },
);

test.describe("CSV import", () => {
  const header = "serial_num,title,procedure,originator_name,date_raised,date_closed,status,attachments,notes";

  test("a good file is checked, then imported on confirmation", async ({ openAs, writer, recordsTagged, tag }) => {
    const csv = [
      header,
      `1-2012-${tag},"Mooring lines, inspection",Deck manual 4,Jan de Vries,2012-02-01,2012-03-01,closed,https://files.example.com/a.pdf|https://files.example.com/b.pdf,`,
      `2-2012-${tag},Galley hygiene,"Galley manual,\nchapter 2",Ann Smit,2012-04-01,,,,"Two\nlines"`,
      `3-2012-${tag},Lifeboat drill,,Piet,2012-05-01,,open,,`,
    ].join("\r\n");
    const page = await openAs(writer);
    await page.goto("/archive/pcrs");
    await page.getByRole("link", { name: "Import CSV" }).click();
    await page.waitForURL(/\/archive\/pcrs\/import$/);
    await ready(page);
    await page
      .getByLabel("CSV file")
      .setInputFiles({ name: "binder-2012.csv", mimeType: "text/csv", buffer: Buffer.from(`\uFEFF${csv}`) });
    await page.getByRole("button", { name: "Check file" }).click();
    await expect(page.getByRole("heading", { name: "All 3 rows are valid" })).toBeVisible();
    await expect(page.getByRole("cell", { name: "Mooring lines, inspection" })).toBeVisible();
    expect(await recordsTagged("pcr", tag)).toEqual([]);

    await page.getByRole("button", { name: "Import 3 legacy PCRs" }).click();
    await page.waitForURL(/\/archive\/pcrs$/);
    await expect(page.locator(".flash")).toContainText("Imported 3 legacy PCRs from binder-2012.csv.");
    const saved = await recordsTagged("pcr", tag);
    expect(saved.map((r) => [r.serial_num, r.status, r.attachments]).sort()).toEqual([
      [`1-2012-${tag}`, "closed", ["https://files.example.com/a.pdf", "https://files.example.com/b.pdf"]],
      [`2-2012-${tag}`, "open", []],
      [`3-2012-${tag}`, "open", []],
    ]);
    expect(saved.find((r) => r.serial_num === `2-2012-${tag}`)).toMatchObject({
      procedure: "Galley manual,\nchapter 2",
      notes: "Two\nlines",
    });
  });

  test("a file with bad rows gets its report and saves nothing", async ({
    openAs,
    writer,
    recordsTagged,
    addRecord,
    tag,
  }) => {
    await addRecord("moc", { serial_num: `7-2011-${tag}`, title: "Already in the archive" });
    const csv = [
      "serial_num,title,originator_name,date_raised,date_closed,status",
      `6-2011-${tag},Fine row,Ann,2011-01-01,,`,
      `7-2011-${tag},Duplicate of the archive,Ann,2011-01-01,,`,
      `8-2011-${tag},Closed before raised,Ann,2011-05-01,2011-04-01,closed`,
      `,No serial,Ann,2011-01-01,,`,
      `9-2011-${tag},Bad date,Ann,2011-02-30,,`,
    ].join("\n");
    const page = await openAs(writer);
    await page.goto("/archive/mocs/import");
    await ready(page);
    await page
      .getByLabel("CSV file")
      .setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Check file" }).click();
    await expect(page.getByRole("alert")).toContainText("Nothing was imported from bad.csv.");
    await expect(page.getByRole("heading", { name: "4 of 5 rows are rejected" })).toBeVisible();
    const report = page.getByRole("table", { name: "Rejected rows" });
    const row = (line: number) =>
      report.getByRole("row").filter({ has: page.getByRole("cell", { name: `Line ${line}`, exact: true }) });
    await expect(row(3)).toContainText(`a legacy MOC with serial number 7-2011-${tag} is already in the archive`);
    await expect(row(4)).toContainText("date_closed: The closing date cannot be before the date raised");
    await expect(row(5)).toContainText("serial_num: Enter the serial number");
    await expect(row(6)).toContainText("date_raised: The date raised must be a real date written YYYY-MM-DD");
    await expect(row(2)).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^Import / })).toHaveCount(0);
    expect((await recordsTagged("moc", tag)).map((r) => r.serial_num)).toEqual([`7-2011-${tag}`]);

    // A file with a wrong header is refused as a whole.
    await page
      .getByLabel("CSV file")
      .setInputFiles({ name: "wrong.csv", mimeType: "text/csv", buffer: Buffer.from("serial,name\n1,2\n") });
    await page.getByRole("button", { name: "Check file" }).click();
    await expect(page.getByRole("alert")).toContainText('Unknown column "serial"');
    await expect(page.getByRole("alert")).toContainText(
      "The header row lacks the required columns serial_num, title, originator_name, date_raised",
    );
  });
});
