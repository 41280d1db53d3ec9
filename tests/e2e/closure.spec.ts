/**
 * Issue 27 items 1 and 6 in the browser, with JavaScript on and off, at 375 px: the verifier's
 * checklist of what blocks closing (refused, an item cancelled with a reason, then closed), the
 * return to implementation with its banner on Part E, and the "Returned by HSEQ" badge and banner
 * on Part B with its required "what changed", and an expired temporary change in its originator's
 * "Waiting on me" with a red badge. Screenshots go under /tmp.
 */
import type { Page } from "@playwright/test";
import postgres from "postgres";
import { PIPELINE, STEP_PATH, stepBody, temporaryPartA } from "../helpers/moc";
import {
  answerAllYes,
  expect,
  futureDate,
  jsEnabled,
  ready,
  test,
  type Cast,
  type Doc,
  type MocApi,
} from "./moc-fixtures";
import { e2eDatabaseUrl } from "./second-instance";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/closure-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

/** A MOC with one open action, taken through /api to verification (status f). */
async function atVerification(mocApi: MocApi, cast: Cast, action: string): Promise<Doc> {
  let moc = await mocApi.create(cast);
  await mocApi.submit("/api/actionTable", cast.implementer, {
    id: moc._id,
    action: { items: [{ description: action, owner: cast.implementer._id, due: null }] },
  });
  for (const { step, by } of PIPELINE) {
    if (step === "verifier") break;
    moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  }
  return moc;
}

test("the checklist blocks closing until the open action is cancelled with a reason", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await atVerification(mocApi, cast, "Post the revised checklist");
  const page = await openAs(cast.hseq); // no verifier named: the assigned HSEQ user verifies
  await page.setViewportSize(PHONE);
  await page.goto(`/mocs/${moc._id}/verifier`);
  await ready(page);
  const checklist = page.getByRole("region", { name: "Before closing" });
  await expect(checklist).toContainText("Action “Post the revised checklist” is neither done nor cancelled");
  await shot(page, "checklist");

  // Closing anyway: refused on the form, next to the answers; nothing closed.
  await answerAllYes(page);
  await page.getByRole("button", { name: "Submit verification" }).click();
  await expect(page.getByRole("group", { name: "Close the MOC?" })).toContainText(
    "Post the revised checklist” is neither done nor cancelled",
  );
  expect(await mocApi.get(moc._id)).toMatchObject({ status: "f", completed: false });
  await shot(page, "refused");

  // Cancelled with a reason from the checklist, then closed.
  await page.goto(`/mocs/${moc._id}/verifier`);
  await page
    .getByRole("region", { name: "Before closing" })
    .getByRole("link", { name: "Cancel it with a reason" })
    .click();
  await ready(page);
  await page.getByRole("button", { name: "Cancel the item" }).click();
  await expect(page.getByText("Give the reason for cancelling the item")).toBeVisible();
  await page.getByLabel("Why it will not be done").fill("The checklist is already posted on every ship");
  await page.getByRole("button", { name: "Cancel the item" }).click();
  await expect(page.getByText("The item is cancelled; its reason is in the history.")).toBeVisible();
  await expect(page.getByRole("region", { name: "Action plan" })).toContainText(
    "The checklist is already posted on every ship",
  );

  // The HSEQ user who cancelled it does not also close the MOC (four eyes, issue 38 item 7): the
  // originator names a verifier, who closes it.
  await page.goto(`/mocs/${moc._id}/verifier`);
  await expect(page.getByText(/the one who cancelled a plan item/).first()).toBeVisible();
  expect(await mocApi.get(moc._id)).toMatchObject({ status: "f", completed: false });
  await mocApi.submit("/api/addUser", cast.originator, { userId: cast.verifier._id, mocId: moc._id, role: "verifier" });
  const verifier = await openAs(cast.verifier);
  await verifier.setViewportSize(PHONE);
  await verifier.goto(`/mocs/${moc._id}/verifier`);
  await ready(verifier);
  await expect(verifier.getByRole("region", { name: "Before closing" })).toContainText(
    "Every plan item is done or cancelled",
  );
  await answerAllYes(verifier);
  await verifier.getByRole("button", { name: "Submit verification" }).click();
  await expect(verifier.getByText(`MOC ${moc.serial_num} is verified and closed.`)).toBeVisible();
  expect(await mocApi.get(moc._id)).toMatchObject({ completed: true });
});

test("the verifier returns the MOC to implementation; Part E shows why", async ({ cast, mocApi, openAs }) => {
  const moc = await atVerification(mocApi, cast, "Fit the spare pump");
  const verifier = await openAs(cast.hseq);
  await verifier.setViewportSize(PHONE);
  await verifier.goto(`/mocs/${moc._id}/verifier`);
  await verifier
    .getByRole("region", { name: "Before closing" })
    .getByRole("link", { name: "Return to implementation" })
    .click();
  await ready(verifier);
  await verifier.getByRole("button", { name: "Return to implementation" }).click();
  await expect(verifier.getByText("Say why the MOC goes back to implementation")).toBeVisible();
  await verifier.getByLabel("Why it goes back").fill("The spare pump is not fitted yet");
  await verifier.getByRole("button", { name: "Return to implementation" }).click();
  await expect(verifier.getByText(`MOC ${moc.serial_num} went back to implementation`)).toBeVisible();
  expect((await mocApi.get(moc._id)).status).toBe("e");

  const implementer = await openAs(cast.implementer);
  await implementer.setViewportSize(PHONE);
  await implementer.goto(`/mocs/${moc._id}/implementation`);
  const banner = implementer.getByRole("note").filter({ hasText: "Returned to implementation by the verifier" });
  await expect(banner).toContainText("The spare pump is not fitted yet");
  await expect(banner).toContainText(cast.hseq.name);
  await shot(implementer, "returned-to-implementation");
});

test("a MOC returned by HSEQ says so, and Part B asks what changed", async ({ cast, mocApi, openAs }) => {
  let moc = await mocApi.createAt(cast, "hseq");
  moc = await mocApi.submit("/api/submit/hseq", cast.hseq, {
    moc_id: moc._id,
    hseq_form: {
      "hseq-change-adequately": { value: "yes" },
      "hseq-justification-satisfactory": { value: "yes" },
      "hseq-risk-assessment-covered": { value: "no" },
      "decline-reason": { value: "Attach the risk assessment first" },
    },
  });

  const page = await openAs(cast.implementer);
  await page.setViewportSize(PHONE);
  await page.goto("/");
  const item = page
    .getByRole("region", { name: "Waiting on me" })
    .getByRole("listitem")
    .filter({ hasText: `MOC ${moc.serial_num}:` });
  await expect(item).toContainText("Returned by HSEQ");
  await shot(page, "dashboard-returned");

  await page.goto(`/mocs/${moc._id}`);
  await expect(page.locator(".badge").filter({ hasText: "Returned by HSEQ" }).first()).toBeVisible();
  await page.goto(`/mocs/${moc._id}/implementer`);
  await ready(page);
  const banner = page.getByRole("note").filter({ hasText: "Returned by HSEQ" });
  await expect(banner).toContainText("Attach the risk assessment first");
  await shot(page, "part-b-returned");

  // The earlier answers come back; without "what changed" it is refused.
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(page.getByText("Say what changed since HSEQ returned the MOC")).toBeVisible();
  expect((await mocApi.get(moc._id)).status).toBe("b");
  await page.getByLabel("What changed since HSEQ returned it (required)").fill("Attached the risk assessment");
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(page.getByText(`MOC ${moc.serial_num} went to HSEQ review.`)).toBeVisible();
  const after = await mocApi.get(moc._id);
  expect(after.status).toBe("c");
  expect(after.logs.at(-1).comment).toBe("Changed since the HSEQ return: Attached the risk assessment");
});

test(
  "an expired temporary change is red and waits on its originator",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    let moc = await mocApi.create(cast, temporaryPartA(futureDate(20)));
    for (const { step, by } of PIPELINE)
      moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
    expect(moc.completed).toBe(true);
    // Its end date passes with nothing recorded (as if approved with an earlier date).
    const sql = postgres(await e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
    try {
      await sql`update mocs set temporary = jsonb_set(temporary, '{until}', to_jsonb(${futureDate(-3)}::text))
      where id = ${moc._id}`;
    } finally {
      await sql.end();
    }

    const page = await openAs(cast.originator);
    await page.setViewportSize(PHONE);
    await page.goto("/");
    const item = page
      .getByRole("region", { name: "Waiting on me" })
      .getByRole("listitem")
      .filter({ hasText: `MOC ${moc.serial_num}:` });
    await expect(item.locator(".badge-danger")).toHaveText("Expired, not restored");
    await shot(page, "dashboard-expired");
    // The originator only waits on it: the link leads to the record, whose badge is red, not "Completed".
    await item.getByRole("link", { name: new RegExp(`^MOC ${moc.serial_num}:`) }).click();
    await expect(page.getByRole("heading", { name: `MOC ${moc.serial_num}`, level: 1 })).toBeVisible();
    await expect(page.locator(".badge-danger").filter({ hasText: "Expired, not restored" }).first()).toBeVisible();
    await expect(page.locator(".badge-success").filter({ hasText: "Completed" })).toHaveCount(0);
    // Listed among the open MOCs, with the same red badge.
    await page.goto("/mocs?state=open&scope=mine");
    const row = page
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: `MOC ${moc.serial_num}`, exact: true }) });
    await expect(row.locator(".badge-danger").first()).toHaveText("Expired, not restored");
  },
);
