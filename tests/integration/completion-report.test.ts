/**
 * The deviation path tells the truth (issue 38 item 2): after the deviation and extension
 * decisions the MOC moves to `f`, Part E keeps the answers the implementer gave, and before
 * verification can close it the implementer reports the completion (POST /api/reportCompletion);
 * the verifier's refusal names it; the record and its print show the deviation, its decision and
 * the reported completion together.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { currentStage, stepWaiting } from "~/models/moc/moc-steps.server";
import { stateOfDocument } from "~/models/moc/steps/shape.server";
import { mocPrintRecord } from "~/models/moc/moc-print.server";
import { daysFromToday, resolution, verifierForm, type Cast } from "../helpers/moc";
import { emailsDuring, makeCast, mocAt, stageOf, stepOk, submitStep, type Doc } from "../helpers/moc-flow";

let cast: Cast;

beforeAll(async () => {
  cast = await makeCast();
});

const report = (moc: Doc, overrides: Record<string, unknown> = {}) => ({
  moc_id: moc._id,
  completion_date: daysFromToday(0),
  note: "Done as approved with the deviation: the pump was fitted with the other flange",
  ...overrides,
});

const printed = (doc: Doc) =>
  mocPrintRecord(doc, [])
    .sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === "fields" ? b.fields : [])))
    .map((f) => `${f.label}: ${f.value}`);

describe("after an accepted deviation", () => {
  it("waits for the implementer's completion report, which the verifier's refusal names, then closes", async () => {
    const requested = await mocAt("b-deviation", cast);
    const { result: decided, to } = await emailsDuring(requested._id, () =>
      stepOk("deviation-extension", cast.approver, resolution(requested, "deviation")),
    );
    expect(decided.status).toBe("f");
    // The implementer is told it is their turn (the completion report).
    expect(to).toContain(cast.implementer.email);
    expect(stepWaiting(stateOfDocument(decided))).toBe("completion-report");
    expect(currentStage(stateOfDocument(decided)).label).toBe("Completion report");

    const refused = await submitStep("verifier", cast.hseq, { moc_id: decided._id, verifier_form: verifierForm() });
    expect(refused.status).toBe(409);
    expect(refused.body.issues.map((i: { message: string }) => i.message)).toContain(
      "The implementer has not reported the completion after the deviation/extension decision (when and how the change was finished)",
    );

    expect((await submitStep("completion-report", cast.originator, report(decided))).status).toBe(403);
    const future = await submitStep(
      "completion-report",
      cast.implementer,
      report(decided, { completion_date: daysFromToday(3) }),
    );
    expect(future.status).toBe(400);
    expect(future.body.issues[0].path).toMatch(/completion_date/);
    expect((await submitStep("completion-report", cast.implementer, report(decided, { note: "" }))).status).toBe(400);

    const reported = await stepOk("completion-report", cast.implementer, report(decided));
    expect(reported.status).toBe("f");
    expect(reported.extentionsAndDeviations!.completion).toMatchObject({
      date: daysFromToday(0),
      note: "Done as approved with the deviation: the pump was fitted with the other flange",
      by: cast.implementer._id,
    });
    // Part E stays as the implementer gave it with the request.
    expect(reported.implementation!["deviation-during-implementation"].value).toBe("yes");
    expect(reported.implementation!["completion-date"]).toBeUndefined();
    expect(reported.logs.at(-1)).toMatchObject({
      action: "Reported the completion after the deviation/extension decision",
    });
    // Once only.
    expect((await submitStep("completion-report", cast.implementer, report(reported))).status).toBe(409);
    expect(stepWaiting(stateOfDocument(reported))).toBe("verifier");

    const closed = await stepOk("verifier", cast.hseq, { moc_id: reported._id, verifier_form: verifierForm() });
    expect(closed.completed).toBe(true);
    const lines = printed(closed);
    expect(lines).toContain("Deviation during implementation: Yes");
    expect(
      lines.some((l) => l.startsWith("Deviation decision: Accepted") || l.startsWith("Deviation decision: Approved")),
    ).toBe(true);
    expect(lines).toContain(`Completion date: ${daysFromToday(0)}`);
    expect(lines).toContain(
      "How it was finished: Done as approved with the deviation: the pump was fitted with the other flange",
    );
  });
});

describe("after an extension", () => {
  it("asks for the report too, even when rejected", async () => {
    const requested = await mocAt("b-extension", cast);
    const decided = await stepOk(
      "deviation-extension",
      cast.hseq,
      resolution(requested, "extension", "no", "Finish by the original date"),
    );
    expect(decided.status).toBe("f");
    expect(stepWaiting(stateOfDocument(decided))).toBe("completion-report");
    const reported = await stepOk("completion-report", cast.implementer, report(decided, { note: "Finished on time" }));
    expect(reported.extentionsAndDeviations!.completion!.note).toBe("Finished on time");
  });
});

describe("the stage is named once (issue 38 item 3)", () => {
  it("names each decision the MOC waits on, and the completion report, on the record, in SQL and in print", async () => {
    const both = await mocAt("b-both", cast);
    expect(await stageOf(both)).toBe("Deviation and extension decision");
    const extensionLeft = await stepOk("deviation-extension", cast.approver, resolution(both, "deviation"));
    expect(await stageOf(extensionLeft)).toBe("Extension decision");
    expect(await stageOf(await mocAt("b-deviation", cast))).toBe("Deviation decision");
    const decided = await stepOk("deviation-extension", cast.approver, resolution(extensionLeft, "extension"));
    expect(await stageOf(decided)).toBe("Completion report");
    const trail = mocPrintRecord(decided, []).history.map((h) => h.detail);
    expect(trail).toContain("Implementation → Deviation and extension decision");
    expect(trail.some((d) => d?.startsWith("Deviation and extension decision → Completion report"))).toBe(true);
    const reported = await stepOk("completion-report", cast.implementer, report(decided));
    expect(await stageOf(reported)).toBe("Verification");
    expect(await stageOf(await mocAt("b-returned", cast))).toBe("Returned by HSEQ");
  });
});

describe("without a deviation or extension", () => {
  it("is a 409: Part E's completion date is the report", async () => {
    const moc = await mocAt("f", cast);
    const res = await submitStep("completion-report", cast.implementer, report(moc));
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/not waiting for a completion report/);
  });
});
