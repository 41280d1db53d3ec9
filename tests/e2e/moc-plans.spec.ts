import { expect, futureDate, ready, test } from "./moc-fixtures";

// The plan editors: rows are added and removed with submit buttons (conform's list intents), so
// they work without JavaScript as well as with it.

test("action plan: add two rows, remove one, save", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto(`/mocs/${moc._id}`);
  await page.getByRole("link", { name: "Edit action plan" }).click();
  await expect(page.getByRole("heading", { name: "Action plan", level: 2 })).toBeVisible();
  await ready(page);
  await expect(page.getByText("No actions yet.")).toBeVisible();

  await page.getByRole("button", { name: "Add an action" }).click();
  await page.getByLabel("Action, action 1").fill("Order the new controller");
  await page.getByLabel("Owner, action 1").selectOption(cast.implementer._id);
  await page.getByRole("button", { name: "Add an action" }).click();
  // Adding a row kept the first one as typed.
  await expect(page.getByLabel("Action, action 1")).toHaveValue("Order the new controller");
  await expect(page.getByLabel("Owner, action 1")).toHaveValue(cast.implementer._id);
  await page.getByLabel("Action, action 2").fill("Train the engine crew");
  await page.getByLabel("Owner, action 2").selectOption(cast.originator._id);
  await page.getByLabel("Due, action 2").fill(futureDate(14));
  await page.getByLabel("Done, action 2").check();

  await page.getByRole("button", { name: "Remove action 1" }).click();
  await expect(page.getByLabel("Action, action 2")).toHaveCount(0);
  await expect(page.getByLabel("Action, action 1")).toHaveValue("Train the engine crew");
  await expect(page.getByLabel("Owner, action 1")).toHaveValue(cast.originator._id);
  await page.getByRole("button", { name: "Save", exact: true }).click();

  await expect(page.getByText("The action plan is saved.")).toBeVisible();
  const table = page.getByRole("region", { name: "Action plan" }).getByRole("table");
  await expect(table.getByRole("row")).toHaveCount(2); // header + one action
  await expect(table.getByRole("row").nth(1)).toContainText("Train the engine crew");
  await expect(table.getByRole("row").nth(1)).toContainText(cast.originator.name);
  await expect(table.getByRole("row").nth(1)).toContainText("Done");
  const saved = (await mocApi.get(moc._id)).action.items;
  expect(saved).toEqual([
    expect.objectContaining({
      description: "Train the engine crew",
      owner: cast.originator._id,
      due: futureDate(14),
      done: true,
    }),
  ]);
});

test("impact assessment: a category with its hazards is saved", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}/impact`);
  await ready(page);
  await page.getByRole("button", { name: "Add a category" }).click();
  await page.getByLabel("Category, category 1").fill("Safety");
  await page.getByLabel("Hazards (one per line), category 1").fill("Electric shock\nPump runs dry");
  await page.getByRole("button", { name: "Save", exact: true }).click();

  await expect(page.getByText("The impact assessment is saved.")).toBeVisible();
  const impact = page.getByRole("region", { name: "Impact assessment" });
  // The record's impact assessment is the parts' description's table (app/models/moc/moc-parts.server.ts).
  await expect(impact.getByRole("cell")).toHaveText(["Safety", "Electric shock; Pump runs dry"]);
  expect((await mocApi.get(moc._id)).impact_assessment).toEqual([
    { category: "Safety", hazards: ["Electric shock", "Pump runs dry"] },
  ]);

  // A row without its category is refused next to that field.
  await page.goto(`/mocs/${moc._id}/impact`);
  await ready(page);
  await page.getByLabel("Category, category 1").fill("");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Category is required")).toBeVisible();
  await expect(page.getByLabel("Hazards (one per line), category 1")).toHaveValue("Electric shock\nPump runs dry");
});

test("risk assessment: an uploaded file is served to viewers only", async ({
  cast,
  outsider,
  mocApi,
  openAs,
  playwright,
  baseURL,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto(`/mocs/${moc._id}`);
  await page.getByRole("link", { name: "Attach a risk assessment" }).click();
  await ready(page);
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
  await page
    .getByLabel("File")
    .setInputFiles({ name: "Risk assessment.pdf", mimeType: "application/pdf", buffer: pdf });
  await page.getByRole("button", { name: "Attach" }).click();

  await expect(page.getByText("The risk assessment is attached.")).toBeVisible();
  const link = page.getByRole("link", { name: "Open the risk assessment" });
  const href = await link.getAttribute("href");
  expect(href).toMatch(/^\/attachments\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("link", { name: "Replace the risk assessment" })).toBeVisible();

  // Someone involved downloads it.
  const implementer = await openAs(cast.implementer);
  const download = await implementer.request.get(href!);
  expect(download.status()).toBe(200);
  expect(download.headers()["content-type"]).toBe("application/pdf");
  expect(download.headers()["content-disposition"]).toBe(
    "attachment; filename=\"Risk assessment.pdf\"; filename*=UTF-8''Risk%20assessment.pdf",
  );
  expect(Buffer.compare(await download.body(), pdf)).toBe(0);

  // Someone else does not, nor does a guessed name.
  const other = await openAs(outsider);
  expect((await other.request.get(href!)).status()).toBe(403);
  expect((await implementer.request.get(`/uploads/${moc._id}/0123456789abcdef-nothing.pdf`)).status()).toBe(404);
  // Signed out: sent to sign in, never the file.
  const signedOut = await playwright.request.newContext({ baseURL });
  const response = await signedOut.get(href!, { maxRedirects: 0 });
  expect(response.status()).toBe(302);
  expect(response.headers()["location"]).toMatch(/^\/login\?redirectTo=/);
  await signedOut.dispose();
});

test("Enter in a row's text box saves the plan; it does not press a row's Remove", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto(`/mocs/${moc._id}/actions`);
  await ready(page);
  await page.getByRole("button", { name: "Add an action" }).click();
  await page.getByLabel("Action, action 1").fill("Order the spare seals");
  await page.getByLabel("Owner, action 1").selectOption(cast.implementer._id);
  await page.getByRole("button", { name: "Add an action" }).click();
  await page.getByLabel("Action, action 2").fill("Fit the spare seals");
  await page.getByLabel("Owner, action 2").selectOption(cast.implementer._id);
  await page.getByLabel("Action, action 2").press("Enter");

  await expect(page.getByText("The action plan is saved.")).toBeVisible();
  expect((await mocApi.get(moc._id)).action.items.map((i: { description: string }) => i.description)).toEqual([
    "Order the spare seals",
    "Fit the spare seals",
  ]);
});
