import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test, type Cast, type MocApi } from "./moc-fixtures";
import { implementationForm } from "../helpers/moc";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

// Every MOC page under axe, in the JavaScript project only (see a11y.spec.ts): the list, Part A,
// the record, each step form, the plan editors and the dashboard, with content on them.

async function scan(page: Parameters<typeof expectNoSeriousA11yViolations>[0], path: string, heading: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { name: heading }).first()).toBeVisible();
  await ready(page);
  await expectNoSeriousA11yViolations(page);
}

/** A MOC waiting for a decision on a deviation and an extension. */
async function mocWithDeviation(mocApi: MocApi, cast: Cast) {
  const moc = await mocApi.createAt(cast, "implementation");
  return mocApi.submit("/api/submit/implementation", cast.implementer, {
    moc_id: moc._id,
    implementation: implementationForm({ deviation: true, extension: true }),
  });
}

test("the MOC list and the dashboard pass an accessibility scan", async ({ cast, mocApi, openAs }) => {
  await mocApi.createAt(cast, "hseq");
  const hseq = await openAs(cast.hseq);
  await scan(hseq, "/mocs", "MOCs");
  await scan(hseq, "/", "Waiting on me"); // with something waiting
});

test("the new MOC page passes an accessibility scan, also with its errors showing", async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  await scan(page, "/mocs/new", "New MOC");
  await page.getByRole("button", { name: "Submit MOC" }).click();
  await expect(page.getByLabel("Implementer", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Reason for change")).toHaveAttribute("aria-invalid", "true");
  await expectNoSeriousA11yViolations(page);
});

test("the record page passes an accessibility scan, open and declined", async ({ cast, mocApi, openAs }) => {
  const [open, declined] = await Promise.all([mocApi.createAt(cast, "hseq"), mocApi.create(cast)]);
  await Promise.all([
    mocApi.submit("/api/actionTable", cast.originator, {
      id: open._id,
      action: { items: [{ description: "Order parts", owner: cast.implementer._id, due: "2031-01-01", done: false }] },
    }),
    mocApi.submit("/api/impact", cast.originator, {
      moc_id: open._id,
      impact_assessment: [{ category: "Safety", hazards: ["Shock"] }],
    }),
    mocApi.submit("/api/submit/implementer", cast.implementer, {
      moc_id: declined._id,
      implementer_form: {
        "details-assessed": { value: "yes" },
        "necessary-justified": { value: "no" },
        "decline-reason": { value: "Not needed" },
      },
    }),
  ]);
  const page = await openAs(cast.originator);
  await scan(page, `/mocs/${open._id}`, `MOC ${open.serial_num}`);
  await scan(page, `/mocs/${declined._id}`, `MOC ${declined.serial_num}`);
});

test("the Part B, C and D forms pass an accessibility scan", async ({ cast, mocApi, openAs }) => {
  // Three step forms, each with a full axe scan.
  const [atB, atC, atD] = await Promise.all([
    mocApi.create(cast),
    mocApi.createAt(cast, "hseq"),
    mocApi.createAt(cast, "approver"),
  ]);
  const [implementer, hseq, approver] = await Promise.all([
    openAs(cast.implementer),
    openAs(cast.hseq),
    openAs(cast.approver),
  ]);
  await scan(hseq, `/mocs/${atC._id}/hseq`, "Part C — HSEQ review");
  await scan(approver, `/mocs/${atD._id}/approver`, "Part D — Approval");
  await scan(implementer, `/mocs/${atB._id}/implementer`, "Part B — Implementer assessment");
  // With its errors showing.
  await implementer.getByRole("button", { name: "Submit assessment" }).click();
  await expect(
    implementer.getByRole("group", { name: "Have the details of the change been assessed?" }),
  ).toHaveAttribute("aria-invalid", "true");
  await expectNoSeriousA11yViolations(implementer);
});

test("the Part A, E and F forms and the deviation page pass an accessibility scan", async ({
  cast,
  mocApi,
  openAs,
}) => {
  // Four pages, each with a full axe scan.
  const [atB, atE, atF, deviation] = await Promise.all([
    mocApi.create(cast),
    mocApi.createAt(cast, "implementation"),
    mocApi.createAt(cast, "verifier"),
    mocWithDeviation(mocApi, cast),
  ]);
  const [originator, implementer, hseq] = await Promise.all([
    openAs(cast.originator),
    openAs(cast.implementer),
    openAs(cast.hseq),
  ]);
  await scan(originator, `/mocs/${atB._id}/originator`, "Part A — Revise before the implementer's assessment");
  await scan(implementer, `/mocs/${atE._id}/implementation`, "Part E — Implementation");
  await scan(hseq, `/mocs/${deviation._id}/deviation`, "Deviation during implementation");
  await scan(hseq, `/mocs/${atF._id}/verifier`, "Part F — Verification");
});

test("the plan editors pass an accessibility scan", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  await mocApi.submit("/api/manualsPlan", cast.originator, {
    id: moc._id,
    manual_plan: { items: [{ document: "Engine manual", change: "Section 4", owner: null, due: null, done: false }] },
  });
  const page = await openAs(cast.originator);
  await scan(page, `/mocs/${moc._id}/impact`, "Impact assessment");
  await scan(page, `/mocs/${moc._id}/manuals`, "Manuals and drawings plan");
  await scan(page, `/mocs/${moc._id}/risk`, "Risk assessment");
  await scan(page, `/mocs/${moc._id}/actions`, "Action plan");
  // With a row, and its error showing.
  await page.getByRole("button", { name: "Add an action" }).click();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Description is required")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
