import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import {
  hseqForm,
  implementationForm,
  implementerForm,
  PIPELINE,
  STEP_PATH,
  stepBody,
  temporaryPartA,
} from "../helpers/moc";
import { expect, futureDate, jsEnabled, ready, test, type Cast, type Doc, type MocApi } from "./moc-fixtures";

// Issue 27 items 2 and 5: every decision form shows what is decided above its questions (with and
// without JavaScript, at 375 px), a delegate's form says whom they act for; and the record page,
// the print view and the PDF carry the same parts, fields and answers.

const shots = () => `/tmp/decision-context-${test.info().project.name}`;

/** The context block is on the page, carries the change, and sits above the form's first question. */
async function expectContextAbove(page: Page, firstQuestion: string) {
  const context = page.getByRole("region", { name: "What you are deciding on" });
  await expect(context).toBeVisible();
  await expect(context).toContainText("Replace the ballast pump controller");
  await expect(context).toContainText("The old controller is obsolete");
  await expect(context).toContainText("Engineering, Operations");
  await expect(context).toContainText("Permanent or temporary");
  await expect(context).toContainText("Risk assessment");
  await expect(context).toContainText("Action plan");
  await expect(context).toContainText("Last decision");
  const question = page.getByRole("group", { name: firstQuestion, exact: true });
  const [above, below] = [await context.boundingBox(), await question.boundingBox()];
  expect(above!.y + above!.height).toBeLessThanOrEqual(below!.y);
  return context;
}

/** A temporary change pushed through /api until verified and closed. */
async function closedTemporary(mocApi: MocApi, cast: Cast) {
  let moc = await mocApi.create(cast, temporaryPartA(futureDate(40)));
  for (const { step, by } of PIPELINE) moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  return moc;
}

test(
  "each decision form shows the change, the plans and the last decision above its questions",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    test.setTimeout(180_000);
    const steps: {
      stage: "implementer" | "hseq" | "approver" | "verifier";
      path: string;
      by: keyof Cast;
      q: string;
    }[] = [
      {
        stage: "implementer",
        path: "implementer",
        by: "implementer",
        q: "Have the details of the change been assessed?",
      },
      { stage: "hseq", path: "hseq", by: "hseq", q: "Is the change adequately described?" },
      { stage: "approver", path: "approver", by: "approver", q: "Have you reviewed the changes?" },
      { stage: "verifier", path: "verifier", by: "hseq", q: "Was the action plan correct and completed?" },
    ];
    for (const { stage, path: segment, by, q } of steps) {
      const moc = await mocApi.createAt(cast, stage);
      const page = await openAs(cast[by]);
      await page.goto(`/mocs/${moc._id}/${segment}`);
      await ready(page);
      const context = await expectContextAbove(page, q);
      if (stage !== "implementer") await expect(context).not.toContainText("No decision yet");
    }

    // The deviation decision.
    let moc = await mocApi.createAt(cast, "implementation");
    moc = await mocApi.submit(STEP_PATH.implementation, cast.implementer, {
      moc_id: moc._id,
      implementation: implementationForm({ deviation: true }),
    });
    const approver = await openAs(cast.approver);
    await approver.goto(`/mocs/${moc._id}/deviation`);
    await ready(approver);
    await expectContextAbove(approver, "Accept the deviation?");

    // The temporary-change confirmation and the extension decision.
    const restoring = await closedTemporary(mocApi, cast);
    await mocApi.submit(
      STEP_PATH["temporary-restored"],
      cast.implementer,
      stepBody("temporary-restored", restoring, cast),
    );
    const hseq = await openAs(cast.hseq);
    await hseq.goto(`/mocs/${restoring._id}/temporary-confirm`);
    await ready(hseq);
    const temporary = await expectContextAbove(hseq, "Is the original condition restored?");
    await expect(temporary).toContainText("Temporary");
    const extending = await closedTemporary(mocApi, cast);
    await mocApi.submit(
      STEP_PATH["temporary-extension"],
      cast.implementer,
      stepBody("temporary-extension", extending, cast),
    );
    await approver.goto(`/mocs/${extending._id}/temporary-extension-decision`);
    await ready(approver);
    await expectContextAbove(approver, "Do you approve the new end date?");
  },
);

test(
  "after an HSEQ return the review shows the reason and what changed, and fits 375 px",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    let moc = await mocApi.createAt(cast, "hseq");
    moc = await mocApi.submit(STEP_PATH.hseq, cast.hseq, {
      moc_id: moc._id,
      hseq_form: hseqForm("no", "Risk assessment missing"),
    });
    moc = await mocApi.submit(STEP_PATH.implementer, cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(cast.approver, cast.hseq, { "target-date": { value: futureDate(45) } }),
    });
    const page = await openAs(cast.hseq);
    await page.setViewportSize({ width: 375, height: 900 });
    await page.goto(`/mocs/${moc._id}/hseq`);
    await ready(page);
    const context = await expectContextAbove(page, "Is the change adequately described?");
    const resubmission = context.locator("[data-resubmission]");
    await expect(resubmission).toContainText("Submitted again after a return");
    await expect(resubmission).toContainText("Risk assessment missing");
    await expect(resubmission).toContainText("Part B: Target date");
    await expect(resubmission).toContainText(`Before: ${futureDate()}`);
    await expect(resubmission).toContainText(`After: ${futureDate(45)}`);
    // At 375 px the change itself is visible without opening anything, and nothing scrolls sideways.
    await expect(context.getByText("Replace the ballast pump controller")).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${shots()}-hseq-375.png`, fullPage: true });
  },
);

test("a delegate's decision form says whom they act for", { tag: "@once" }, async ({ cast, mocApi, openAs }) => {
  test.setTimeout(120_000);
  const approver = await openAs(cast.approver);
  await approver.goto("/profile");
  await ready(approver);
  const form = approver.getByRole("region", { name: "When you are away" });
  await form.getByLabel("Delegate (acts for you and gets your MOC emails)").selectOption({ label: cast.verifier.name });
  await form.getByLabel("From").fill(futureDate(0));
  await form.getByLabel("To (included)").fill(futureDate(5));
  await form.getByRole("button", { name: "Name the delegate" }).click();
  await expect(approver.getByText(`${cast.verifier.name} stands in for ${cast.approver.name}`)).toBeVisible();

  const moc = await mocApi.createAt(cast, "approver");
  const deputy = await openAs(cast.verifier);
  await deputy.setViewportSize({ width: 375, height: 900 });
  await deputy.goto(`/mocs/${moc._id}/approver`);
  await ready(deputy);
  const context = await expectContextAbove(deputy, "Have you reviewed the changes?");
  await expect(context.locator("[data-acting-for]")).toContainText(`acting for ${cast.approver.name}`);
  await deputy.screenshot({ path: `${shots()}-delegate-375.png`, fullPage: true });
  // The approver in person acts for nobody.
  await approver.goto(`/mocs/${moc._id}/approver`);
  await ready(approver);
  await expect(approver.locator("[data-acting-for]")).toHaveCount(0);
});

/** Each part's title with its label/answer pairs, as a page shows them inside `[data-part]`. */
async function partsOf(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((nodes) =>
    nodes.map((node) => ({
      title: (node.querySelector("h2")?.childNodes[0]?.textContent ?? "").trim(),
      fields: [...node.querySelectorAll("dt")].map((dt) => [
        (dt.textContent ?? "").trim(),
        (dt.nextElementSibling?.textContent ?? "").replace(/\s+/g, " ").trim(),
      ]),
      cells: [...node.querySelectorAll("tbody td")].map((td) => (td.textContent ?? "").trim()),
    })),
  );
}

test(
  "the record page, the print view and the PDF carry the same parts, fields and answers",
  { tag: "@once" },
  async ({ cast, mocApi, openAs, request, baseURL }) => {
    test.setTimeout(120_000);
    let moc: Doc = await mocApi.createAt(cast, "hseq");
    moc = await mocApi.submit(STEP_PATH.hseq, cast.hseq, {
      moc_id: moc._id,
      hseq_form: hseqForm("no", "Risk assessment missing"),
    });
    for (const { step, by } of PIPELINE) {
      // Before approval (afterwards the plan is frozen), an action owned by someone not otherwise on the MOC.
      if (step === "approver") {
        await mocApi.submit("/api/actionTable", cast.implementer, {
          id: moc._id,
          action: {
            items: [
              { description: "Fit the new controller", owner: cast.verifier._id, due: futureDate(20), done: true },
            ],
          },
        });
      }
      moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
    }

    const page = await openAs(cast.originator);
    await page.setViewportSize({ width: 375, height: 900 });
    await page.goto(`/mocs/${moc._id}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${shots()}-record-375.png`, fullPage: true });
    // Every part is in the description: a card of the parts' area without it would be a page-only part.
    const cards = await page.locator(".parts > .part").count();
    expect(await page.locator(".parts > .part[data-part]").count()).toBe(cards);
    const onPage = await partsOf(page, ".parts [data-part]");
    await page.goto(`/mocs/${moc._id}/print`);
    const inPrint = await partsOf(page, ".print-section");

    const response = await request.get(`${baseURL}/mocs/${moc._id}/pdf`, {
      headers: { Cookie: `session=${cast.originator.cookie}` },
    });
    expect(response.status()).toBe(200);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "parity-")), "record.pdf");
    writeFileSync(file, await response.body());
    const pdf = execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");

    expect(onPage.length).toBeGreaterThan(6);
    let walked = 0;
    for (const part of onPage) {
      const printed = inPrint.find((p) => p.title === part.title);
      expect(printed, `print has ${part.title}`).toBeDefined();
      expect(pdf).toContain(part.title);
      for (const [label, value] of part.fields) {
        expect(printed!.fields, `${part.title}: ${label}`).toContainEqual([label, value]);
        expect(pdf, `${part.title}: ${label}`).toContain(label);
        expect(pdf, `${part.title}: ${label} = ${value}`).toContain(value);
        walked++;
      }
      expect(printed!.cells).toEqual(expect.arrayContaining(part.cells));
      for (const cell of part.cells) expect(pdf).toContain(cell);
    }
    expect(walked).toBeGreaterThan(20);
    // The cases: Part A's change type, Part C's return as history, the action owner by name.
    expect(pdf).toContain("Permanent or temporary");
    expect(pdf).toContain("Risk assessment missing");
    expect(pdf).toContain(cast.verifier.name);
    if (!jsEnabled()) await page.screenshot({ path: `${shots()}-print.png` });
  },
);
