/**
 * Issue 27 items 2 and 5. One description of a MOC's parts (app/models/moc/moc-parts.server.ts): every
 * field of it is in the print view and in the PDF's text (pdftotext), with the fixes the issue
 * names (Part A's change type and end date, each decision's own comment, plan owners by name,
 * Part C's returns beneath its final answers). And the decision context of every decision form
 * (app/web/decision-context.server.ts): the change, the plans, the last decision, what changed
 * after a return, and "acting for" for a delegate.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as pcrPdf from "~/routes/pcrs+/$id_.pdf";
import * as pcrPrint from "~/routes/pcrs+/$id_.print";
import * as hseqPage from "~/routes/mocs+/$id.hseq";
import * as approverPage from "~/routes/mocs+/$id.approver";
import * as deviationPage from "~/routes/mocs+/$id.deviation";
import * as verifierPage from "~/routes/mocs+/$id.verifier";
import * as implementerPage from "~/routes/mocs+/$id.implementer";
import * as temporaryConfirmPage from "~/routes/mocs+/$id.temporary-confirm";
import * as temporaryExtensionDecisionPage from "~/routes/mocs+/$id.temporary-extension-decision";
import * as implementationPage from "~/routes/mocs+/$id.implementation";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as cancelItemRoute from "~/routes/api+/cancelPlanItem";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import * as riskAssessmentRoute from "~/routes/api+/risk_assessment";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { DecisionContext } from "~/components/decision-context";
import { createDelegation } from "~/models/people/delegation.server";
import { loadMocDocument } from "~/models/moc/moc-query.server";
import { describeMocParts } from "~/models/moc/moc-parts.server";
import { drawnImage, type PrintRecord } from "~/models/records-out/record-print.server";
import type { DecisionContextData } from "~/web/decision-context.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday, futureDate, hseqForm, implementationForm, implementerForm, resolution } from "../helpers/moc";
import { defaultStepBody, makeCast, mocAt, post, stepOk, temporaryMocAt } from "../helpers/moc-flow";
import type { Cast } from "../helpers/moc";
import { folded, pdfTextOf, printOf, requestAs } from "../helpers/record-views";
import { createPcrOk, signOk, TINY_PNG } from "../helpers/pcr";

type StepRoute = { loader: (args: never) => unknown };
async function decisionOf(route: StepRoute, step: string, id: string, user: { _id: string }) {
  const data = (await route.loader({
    request: await requestAs(user, `/mocs/${id}/${step}`),
    params: { id },
    context: {},
  } as never)) as { decision: DecisionContextData | null };
  return data.decision;
}

/**
 * A temporary change returned once by HSEQ (the target date then changed), approved, its plan
 * owned by someone not otherwise on the MOC, a deviation accepted with a comment.
 */
async function storyMoc(
  pause: {
    atHseq?: (id: string, cast: Cast) => Promise<void>;
    atDeviation?: (id: string, cast: Cast) => Promise<void>;
  } = {},
) {
  const cast = await makeCast();
  const outsider = await makeUser({ name: "Otto Outsider", department: "fleet" });
  let moc = await mocAt("b-returned", cast, { temporaryUntil: daysFromToday(90), verifier: true });
  moc = await stepOk("implementer", cast.implementer, {
    moc_id: moc._id,
    implementer_form: implementerForm(cast.approver, cast.hseq, { "target-date": { value: futureDate(45) } }),
  });
  // The plan is written before approval: afterwards it is frozen (docs/decisions/034).
  const plan = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
    body: {
      id: moc._id,
      action: {
        items: [{ description: "Fit the new controller", owner: outsider._id, due: futureDate(20), done: false }],
      },
    },
  });
  expect(plan.status, plan.text).toBe(200);
  await pause.atHseq?.(moc._id, cast);
  moc = await stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm() });
  moc = await stepOk("approver", cast.approver, {
    moc_id: moc._id,
    approver_form: { "approver-changes-reviewed": { value: "yes" }, "approver-moc-approved": { value: "yes" } },
  });
  moc = await stepOk("implementation", cast.implementer, {
    moc_id: moc._id,
    implementation: implementationForm({ deviation: true }),
  });
  await pause.atDeviation?.(moc._id, cast);
  moc = await stepOk(
    "deviation-extension",
    cast.approver,
    resolution(moc, "deviation", "yes", "Bracket accepted by class"),
  );
  return { cast, outsider, moc };
}

describe("one description of a MOC's parts", () => {
  it("the print view and the PDF carry every field of the description, with the issue's fixes", async () => {
    const { cast, outsider, moc } = await storyMoc();
    const doc = (await loadMocDocument(moc._id))!;
    const described = describeMocParts(doc);
    const record = await printOf(moc._id, cast.originator);
    const pdf = await pdfTextOf(moc._id, cast.originator);

    // Walk every field: the print view's section of the same title has it, and so does the PDF.
    let walked = 0;
    for (const part of described.parts) {
      const section = record.sections.find((s) => s.id === part.id);
      expect(section, part.title).toBeDefined();
      expect(section!.title).toBe(part.title);
      expect(pdf).toContain(part.title);
      const printed = section!.blocks.flatMap((b) => (b.kind === "fields" ? b.fields : []));
      for (const field of part.fields) {
        expect(printed, `${part.title}: ${field.label}`).toContainEqual({ label: field.label, value: field.text });
        expect(pdf, `${part.title}: ${field.label}`).toContain(folded(field.label));
        expect(pdf, `${part.title}: ${field.label} = ${field.text}`).toContain(folded(field.text));
        walked++;
      }
      // Who and when: the note names them, in print and PDF.
      if (part.who) {
        expect(section!.note).toContain(part.who);
        expect(pdf).toContain(part.who);
      }
      for (const entry of part.history?.entries ?? []) {
        const rows = section!.blocks.flatMap((b) => (b.kind === "table" ? b.rows : []));
        expect(rows.some((row) => row.includes(entry.who) && row.includes(entry.comment ?? "—"))).toBe(true);
        expect(pdf).toContain(entry.comment ?? "");
      }
    }
    for (const table of described.tables) {
      const section = record.sections.find((s) => s.id === table.id)!;
      expect(section.blocks).toContainEqual({
        kind: "table",
        columns: table.columns,
        rows: table.rows,
        empty: table.empty,
      });
      for (const cell of table.rows.flat()) expect(pdf).toContain(folded(cell));
    }
    expect(walked).toBeGreaterThan(25);

    const partOf = (id: string) => described.parts.find((p) => p.id === id)!;
    const text = (id: string, label: string) => partOf(id).fields.find((f) => f.label === label)?.text;
    // Part A: change type and end date.
    expect(text("part-a", "Permanent or temporary")).toBe("Temporary");
    expect(text("part-a", "Temporary until")).toBe(daysFromToday(90));
    expect(text("part-a", "Description of change")).toContain("ballast pump");
    // Who submitted each part, by name.
    expect(partOf("part-a").who).toBe(cast.originator.name);
    expect(partOf("part-b").who).toBe(cast.implementer.name);
    expect(partOf("part-d").who).toBe(cast.approver.name);
    // Part C: the final all-yes answers, the earlier return beneath them as history.
    expect(partOf("part-c").fields.map((f) => f.label)).not.toContain("Reason for return");
    expect(partOf("part-c").history?.entries).toEqual([
      expect.objectContaining({ who: cast.hseq.name, comment: "Risk assessment missing" }),
    ]);
    // The action owner holding no role on the MOC, by name (one of its people as an owner:
    // docs/decisions/038-actions-as-tasks.md).
    expect(
      [doc.originator_id, doc.implementer_id, doc.approver_id, doc.verifier_id, doc.hseq_id].map((u) => u?._id),
    ).not.toContain(outsider._id);
    expect(described.tables.find((t) => t.id === "action-plan")!.rows[0]).toContain("Otto Outsider");
    expect(pdf).toContain("Otto Outsider");
    // Each decision block with its own comment: Part D's approval has none; the deviation's has its own.
    const approval = record.signatures.find((s) => s.role === "Approver" && s.meaning === "Approved");
    expect(approval?.comment).toBeNull();
    const deviation = record.signatures.find((s) => s.comment === "Bracket accepted by class");
    expect(deviation?.role).toBe("Approver");
    expect(deviation?.meaning).not.toBe("Approved");
    expect(text("deviations", "Deviation decision comment")).toBe("Bracket accepted by class");
  });

  it("a PCR's drawn signature is its image in print and in the PDF, not the words", async () => {
    const originator = await makeUser({ name: "Dora Drawer" });
    const pcr = await createPcrOk(originator);
    await signOk(originator, pcr._id, "Change Originator", { signature: TINY_PNG });
    const request = async (url: string) => requestAs(originator, url);
    const { record } = (await pcrPrint.loader({
      request: await request(`/pcrs/${pcr._id}/print`),
      params: { id: pcr._id },
      context: {},
    } as never)) as { record: PrintRecord };
    const block = record.signatures.find((s) => s.role === "Change Originator")!;
    expect(block).toMatchObject({ state: "signed", image: TINY_PNG, mark: null });
    const response = await pcrPdf.loader({
      request: await request(`/pcrs/${pcr._id}/pdf`),
      params: { id: pcr._id },
      context: {},
    } as never);
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    // The image is embedded (an image XObject), and the words stand nowhere.
    expect(bytes.toString("latin1")).toMatch(/\/Subtype \/Image/);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "moc-parts-")), "pcr.pdf");
    writeFileSync(file, bytes);
    expect(execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" })).not.toContain("Drawn signature");
    // Only a PNG or JPEG data URL is taken for an image.
    expect(drawnImage("data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=")).toBeNull();
    expect(drawnImage("data:image/png;base64,<svg onload=alert(1)>")).toBeNull();
    expect(drawnImage("Dora Drawer")).toBeNull();
  });
});

describe("decision forms show what is decided", () => {
  it("after a return the HSEQ form shows the reason and what changed; the deviation decision the plans", async () => {
    const seen: Record<string, DecisionContextData | null> = {};
    await storyMoc({
      atHseq: async (id, cast) => {
        seen.hseq = await decisionOf(hseqPage, "hseq", id, cast.hseq);
      },
      atDeviation: async (id, cast) => {
        seen.deviation = await decisionOf(deviationPage, "deviation", id, cast.approver);
      },
    });
    const hseq = seen.hseq!;
    expect(hseq.actingFor).toBeNull();
    expect(hseq.change.fields.map((f) => f.label)).toEqual(
      expect.arrayContaining([
        "Description of change",
        "Reason for change",
        "Affected departments",
        "Permanent or temporary",
        "Temporary until",
      ]),
    );
    expect(hseq.resubmission).toMatchObject({ reason: "Risk assessment missing" });
    expect(hseq.resubmission!.changes).toEqual([
      { part: "Part B", label: "Target date", before: futureDate(), after: futureDate(45) },
    ]);
    expect(hseq.lastDecision?.action).toBe("Submitted the implementer assessment");
    // The deviation decision: the plan with its owner and state; the trail's last decision is the approval.
    const deviation = seen.deviation!;
    expect(deviation.actionPlan.rows).toEqual([["Fit the new controller", "Otto Outsider", futureDate(20), "Open"]]);
    expect(deviation.lastDecision?.action).toMatch(/^Approved/);
  });

  it("after a return, what else changed (a file attached, with its note) shows on the next decision only", async () => {
    const cast = await makeCast();
    const returned = await mocAt("b-returned", cast);
    const attached = await post(riskAssessmentRoute, "/api/risk_assessment", cast.implementer, {
      body: { moc_id: returned._id, risk_assessment: "https://docs.example.com/ra-bypass.pdf" },
    });
    expect(attached.status, attached.text).toBe(200);
    const resubmitted = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", returned, cast));
    const hseq = await decisionOf(hseqPage, "hseq", resubmitted._id, cast.hseq);
    expect(hseq?.resubmission?.since.map((e) => e.action)).toContain("Attached the risk assessment");
    const html = renderToStaticMarkup(createElement(DecisionContext, { context: hseq! }));
    expect(html).toContain("Also since the return");
    expect(html).toContain("Attached the risk assessment");
    // HSEQ decides after the resubmission: the approver's form no longer carries the return (issue 38 item 5).
    const reviewed = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", resubmitted, cast));
    expect((await decisionOf(approverPage, "approver", reviewed._id, cast.approver))?.resubmission).toBeNull();
  });

  it("each decision route's loader returns the context (approver, verifier, temporary decisions), with acting for", async () => {
    const cast = await makeCast();
    const atD = await mocAt("d", cast);
    const approver = await decisionOf(approverPage, "approver", atD._id, cast.approver);
    expect(approver?.change.fields.find((f) => f.label === "Reason for change")?.text).toBe(
      "The old controller is obsolete",
    );
    expect(approver?.lastDecision?.action).toBe("HSEQ review passed");
    expect(approver?.resubmission).toBeNull();

    const atB = await mocAt("b", cast);
    expect(await decisionOf(implementerPage, "implementer", atB._id, cast.implementer)).toMatchObject({
      lastDecision: null,
    });

    const atF = await mocAt("f", cast);
    const verifier = await decisionOf(verifierPage, "verifier", atF._id, cast.hseq);
    expect(verifier?.actionPlan.title).toBe("Action plan");

    const atDeviation = await mocAt("b-deviation", cast);
    const deviation = await decisionOf(deviationPage, "deviation", atDeviation._id, cast.approver);
    expect(deviation?.lastDecision?.action).toBe("Approved");
    expect(deviation?.resubmission).toBeNull();

    const restoring = await temporaryMocAt("restoration-reported", cast);
    expect(await decisionOf(temporaryConfirmPage, "temporary-confirm", restoring._id, cast.hseq)).not.toBeNull();
    const extending = await temporaryMocAt("extension-requested", cast);
    expect(
      await decisionOf(temporaryExtensionDecisionPage, "temporary-extension-decision", extending._id, cast.approver),
    ).not.toBeNull();

    // A step that decides nothing (the implementer's report) has no context.
    const atE = await mocAt("e", cast);
    expect(await decisionOf(implementationPage, "implementation", atE._id, cast.implementer)).toBeNull();

    // A delegate of the approver: the form says whom they act for.
    const deputy = await makeUser({ name: "Dee Deputy", department: "operations" });
    await createDelegation(cast.approver, {
      userId: cast.approver._id,
      delegateId: deputy._id,
      startsOn: daysFromToday(0),
      endsOn: daysFromToday(7),
    });
    const acting = await decisionOf(approverPage, "approver", (await mocAt("d", cast))._id, deputy);
    expect(acting?.actingFor).toBe(cast.approver.name);
  });
});

describe("the decision forms count the plans as the closure gate does (issue 38 item 4)", () => {
  it("“Action plan (2 of 4 done, 1 cancelled)” and “Manuals and drawings plan (1 of 1 done)” at verification", async () => {
    const cast = await makeCast();
    const atB = await mocAt("b", cast);
    const planned = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: {
        id: atB._id,
        action: {
          items: ["Fit the controller", "Test the alarm", "Brief the crew", "Update the PMS"].map((description) => ({
            description,
            owner: cast.implementer._id,
            due: null,
            done: false,
          })),
        },
      },
    });
    expect(planned.status, planned.text).toBe(200);
    const manuals = await post(manualsPlanRoute, "/api/manualsPlan", cast.implementer, {
      body: {
        id: atB._id,
        manual_plan: {
          items: [{ document: "Engine room manual", change: "Section 4", owner: cast.implementer._id, due: null }],
        },
      },
    });
    expect(manuals.status, manuals.text).toBe(200);
    let doc = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", atB, cast));
    doc = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", doc, cast));
    doc = await stepOk("approver", cast.approver, defaultStepBody("approver", doc, cast));
    const [fit, test, brief] = doc.action.items;
    for (const item of [fit, test]) {
      const res = await post(actionDoneRoute, "/api/actionDone", cast.implementer, {
        body: { moc_id: doc._id, plan: "action", item_id: item._id, note: "Done on board" },
      });
      expect(res.status, res.text).toBe(200);
    }
    const cancelled = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: doc._id, plan: "action", item_id: brief._id, reason: "Covered by the toolbox talk" },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const manualDone = await post(actionDoneRoute, "/api/actionDone", cast.implementer, {
      body: { moc_id: doc._id, plan: "manual_plan", item_id: doc.manual_plan.items[0]._id, note: "Revised" },
    });
    expect(manualDone.status, manualDone.text).toBe(200);
    const atF = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", doc, cast));
    const decision = await decisionOf(verifierPage, "verifier", atF._id, cast.hseq);
    const html = renderToStaticMarkup(createElement(DecisionContext, { context: decision! }));
    const text = html.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    expect(text).toContain("Action plan (2 of 4 done, 1 cancelled)");
    expect(text).toContain("Manuals and drawings plan (1 of 1 done)");
  });
});
