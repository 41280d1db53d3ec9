/**
 * External references in the browser (issue 42, docs/decisions/057-record-links-and-references.md),
 * JavaScript on and off: an admin adds a reference type with a URL template on /admin/references
 * (a template without {ref} refused next to its field first), the MOC's originator adds a reference
 * of it on the MOC's page (an empty number refused by its field first) and sees it as a link to the
 * outside system, and the MOC list's CSV carries it. Screenshots at 375 px go under /tmp.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { fitsWidth } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/references-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test("an admin adds a reference type with a link; a MOC's originator references a work order that links out and is in the CSV", async ({
  cast,
  createUser,
  mocApi,
  openAs,
  request,
}) => {
  test.setTimeout(120_000);
  const tag = randomBytes(3).toString("hex");
  const typeName = `Maintenance job ${tag}`;
  const made = await createUser({ name: `Ada Admin ${tag}`, role: "admin", department: "operations" });
  const admin = await openAs({ ...made, token: made.token! });
  await admin.setViewportSize(PHONE);

  // The admin adds the type, from the administration index.
  await admin.goto("/admin");
  await admin.getByRole("link", { name: "Reference types" }).click();
  await expect(admin.getByRole("heading", { name: "Reference types", level: 1 })).toBeVisible();
  await ready(admin);
  const add = admin.getByRole("region", { name: "Add a reference type" });
  await add.getByLabel("Name").fill(typeName);
  await add.getByLabel("URL template (optional)").fill("https://pms.example/job/");
  await add.getByRole("button", { name: "Add at the end" }).click();
  await expect(add.getByText("A URL template must contain {ref}")).toBeVisible();
  await expect(add.getByLabel("Name")).toHaveValue(typeName);
  await add.getByLabel("URL template (optional)").fill("https://pms.example/job/{ref}");
  await add.getByRole("button", { name: "Add at the end" }).click();
  await expect(admin.getByText(`${typeName} is added at the end of the list.`)).toBeVisible();
  const list = admin.getByRole("region", { name: /The list/ });
  await expect(list).toContainText(`Links to https://pms.example/job/{ref}`);
  await fitsWidth(admin);
  await shot(admin, "admin");

  // The MOC's originator references a work order on the MOC's page.
  const moc = await mocApi.create(cast);
  const author = await openAs(cast.originator);
  await author.setViewportSize(PHONE);
  await author.goto(`/mocs/${moc._id}`);
  await ready(author);
  const section = author.getByRole("region", { name: "References" });
  await expect(section).toContainText("No incident, work order or other outside record is referenced yet.");
  await section.getByLabel("Type").selectOption({ label: typeName });
  await section.getByLabel("Number").fill("   ");
  await section.getByRole("button", { name: "Add the reference" }).click();
  await expect(section.getByText("Enter the reference's number")).toBeVisible();
  await expect(section.getByLabel("Number")).toHaveAttribute("aria-invalid", "true");
  const number = `WO-${tag}/7`;
  await section.getByLabel("Number").fill(number);
  await section.getByLabel("Type").selectOption({ label: typeName });
  await section.getByRole("button", { name: "Add the reference" }).click();
  await expect(author.getByText(`${typeName} ${number} is added to the references.`)).toBeVisible();
  const link = section.getByRole("link", { name: number });
  await expect(link).toHaveAttribute("href", `https://pms.example/job/${encodeURIComponent(number)}`);
  await expect(link).toHaveAttribute("rel", "noopener noreferrer");
  await expect(section).toContainText(`${typeName} ${number}`);
  await fitsWidth(author);
  await shot(author, "moc");
  await section.screenshot({ path: `/tmp/references-moc-section-${jsEnabled() ? "js" : "no-js"}.png` });

  // The MOC list's CSV carries it, in the last column.
  const csv = await request.get(`/api/getAllMoc?format=csv&q=${encodeURIComponent(moc.serial_num)}`, {
    headers: { Authorization: `Bearer ${cast.originator.token}` },
  });
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).replace(/^\uFEFF/, "").split("\r\n");
  expect(lines[0]!.split(",").at(-1)).toBe("References");
  const row = lines.find((l) => l.startsWith(`${moc.serial_num},`))!;
  expect(row.endsWith(`,${typeName} ${number}`)).toBe(true);

  // Removed again by its button.
  await section.getByRole("button", { name: `Remove ${typeName} ${number}` }).click();
  await expect(author.getByText(`${typeName} ${number} is removed from the references.`)).toBeVisible();
  await expect(section.getByRole("link", { name: number })).toHaveCount(0);
});
