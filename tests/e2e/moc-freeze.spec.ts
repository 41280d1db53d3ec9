import { randomBytes } from "node:crypto";
import { STEP_PATH, stepBody } from "../helpers/moc";
import { expect, jsEnabled, ready, test, type Person } from "./moc-fixtures";

// Issue 27 items 3 and 4 (docs/decisions/034-approved-content-and-deleting.md): an approved MOC's
// record hides the edits and its plan page offers only the done marks; a MOC someone has decided on
// is deleted by an admin with a reason, listed under "Deleted" and restored. With and without
// JavaScript, at 375 px.

test.use({ viewport: { width: 375, height: 812 } });

const shot = (name: string) => `/tmp/moc-freeze-${name}-375-${jsEnabled() ? "js" : "nojs"}.png`;

test("an approved MOC: edits hidden, the owner ticks their action done", async ({ cast, mocApi, openAs }) => {
  // Part B submitted, then the plan, then review and approval. The verifier owns an action.
  let moc = await mocApi.createAt(cast, "hseq");
  await mocApi.submit("/api/addUser", cast.originator, { userId: cast.verifier._id, mocId: moc._id, role: "verifier" });
  await mocApi.submit("/api/actionTable", cast.implementer, {
    id: moc._id,
    action: {
      items: [
        { description: "Order the new pump", owner: cast.verifier._id, due: null, done: false },
        { description: "Train the crew", owner: cast.implementer._id, due: null, done: false },
      ],
    },
  });
  moc = await mocApi.submit(STEP_PATH.hseq, cast.hseq, stepBody("hseq", moc, cast));
  moc = await mocApi.submit(STEP_PATH.approver, cast.approver, stepBody("approver", moc, cast));

  const originator = await openAs(cast.originator);
  await originator.goto(`/mocs/${moc._id}`);
  await expect(originator.getByText(/Approved: the change, its impact assessment/)).toBeVisible();
  await expect(originator.getByRole("link", { name: "Edit impact assessment" })).toHaveCount(0);
  await expect(originator.getByRole("link", { name: "Replace the risk assessment" })).toHaveCount(0);
  await expect(originator.getByRole("link", { name: "Attach a risk assessment" })).toHaveCount(0);
  await expect(originator.getByRole("link", { name: "Edit action plan" })).toHaveCount(0);
  // The originator owns no item: nothing to mark either; and the MOC is decided, so no delete.
  await expect(originator.getByRole("link", { name: "Mark actions done" })).toHaveCount(0);
  await expect(originator.getByRole("link", { name: "Delete MOC" })).toHaveCount(0);
  // The frozen pages send the originator back with the reason.
  await originator.goto(`/mocs/${moc._id}/impact`);
  await expect(originator.getByText(/This MOC is approved: its Part A, impact assessment/)).toBeVisible();

  const owner = await openAs(cast.verifier);
  await owner.goto(`/mocs/${moc._id}/actions`);
  await ready(owner);
  await expect(owner.getByText(/the items themselves change only through a deviation/)).toBeVisible();
  await expect(owner.getByRole("button", { name: /Add an action/ })).toHaveCount(0);
  await expect(owner.getByRole("button", { name: /Remove action/ })).toHaveCount(0);
  await expect(owner.getByRole("textbox", { name: "Action, action 1" })).toHaveCount(0);
  // Their own item has a box; the implementer's does not.
  await expect(owner.getByLabel("Done, action 2")).toHaveCount(0);
  await owner.getByLabel("Done, action 1").check();
  await owner.screenshot({ path: shot("mark-done"), fullPage: true });
  await owner.getByRole("button", { name: "Save", exact: true }).click();
  await expect(owner.getByText("The action plan is saved.")).toBeVisible();
  const items = (await mocApi.get(moc._id)).action.items;
  expect(items.map((i: { description: string; done: boolean }) => [i.description, i.done])).toEqual([
    ["Order the new pump", true],
    ["Train the crew", false],
  ]);
  await originator.goto(`/mocs/${moc._id}`);
  await originator.screenshot({ path: shot("record"), fullPage: true });
});

test("an admin deletes a decided MOC with a reason, finds it under Deleted and restores it", async ({
  cast,
  mocApi,
  openAs,
  createUser,
}) => {
  const moc = await mocApi.createAt(cast, "approver");
  const created = await createUser({ name: `Ada Admin ${randomBytes(3).toString("hex")}`, role: "admin" });
  const admin: Person = { ...created, token: created.token! };

  // The originator no longer may: someone else has decided.
  const originator = await openAs(cast.originator);
  await originator.goto(`/mocs/${moc._id}`);
  await expect(originator.getByRole("heading", { name: /MOC/ }).first()).toBeVisible();
  await expect(originator.getByRole("link", { name: "Delete MOC" })).toHaveCount(0);

  const page = await openAs(admin);
  await page.goto(`/mocs/${moc._id}`);
  await page.getByRole("link", { name: "Delete MOC" }).click();
  const reason = page.getByLabel("Why is it deleted? (kept in its history)");
  await expect(reason).toBeVisible();
  await reason.fill("Raised twice; the other MOC carries on");
  await page.screenshot({ path: shot("delete-confirm"), fullPage: false });
  await page.getByRole("button", { name: `Delete MOC ${moc.serial_num}` }).click();
  await expect(page.getByText(`MOC ${moc.serial_num} was deleted.`)).toBeVisible();

  await page.getByRole("link", { name: "Deleted" }).click();
  await expect(page.getByRole("heading", { name: "Deleted MOCs" })).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: `MOC ${moc.serial_num}` });
  await expect(row).toContainText(admin.name);
  await expect(row).toContainText("Raised twice; the other MOC carries on");
  await page.screenshot({ path: shot("deleted-list"), fullPage: true });
  await row.getByRole("button", { name: `Restore MOC ${moc.serial_num}` }).click();
  await expect(page.getByText(`MOC ${moc.serial_num} is restored.`)).toBeVisible();
  const history = page.getByRole("region", { name: "History" });
  await expect(history).toContainText("Deleted");
  await expect(history).toContainText("Restored");
  expect((await mocApi.get(moc._id)).isDeleted).toBe(false);

  // The tab is the admins' only.
  await originator.goto("/mocs");
  await expect(originator.getByRole("link", { name: "Deleted" })).toHaveCount(0);
});
