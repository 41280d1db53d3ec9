/**
 * Records taken out: the MOC and PCR print views (their loaders: access rules and content) and
 * PDFs read back with pdftotext (poppler-utils).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as mocPdf from "~/routes/mocs+/$id_.pdf";
import * as mocPrint from "~/routes/mocs+/$id_.print";
import * as pcrPdf from "~/routes/pcrs+/$id_.pdf";
import * as pcrPrint from "~/routes/pcrs+/$id_.print";
import type { PrintRecord } from "~/models/record-print.server";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, partySign, POSITION_ROLES, signChain, signOk } from "../helpers/pcr";
import { buildRequest } from "../helpers/request";

const asUser = async (user: { _id: string }) => ({ token: await tokenFor(user as never), cookie: true });

/** A page loader's answer: its data, or the status of the error it threw (404/403 pages). */
async function load(route: { loader: (args: never) => unknown }, url: string, id: string, user: { _id: string }) {
  const request = await buildRequest({ path: url, ...(await asUser(user)) });
  try {
    const value = await route.loader({ request, params: { id }, context: {} } as never);
    if (value instanceof Response) return { status: value.status, body: undefined, response: value };
    return { status: 200, body: value as { record: PrintRecord }, response: null };
  } catch (thrown) {
    const status = thrown instanceof Response ? thrown.status : (thrown as { init?: { status?: number } }).init?.status;
    return { status: status ?? 500, body: undefined, response: null };
  }
}

const printOf = (route: typeof mocPrint, kind: "mocs" | "pcrs", id: string, user: { _id: string }) =>
  load(route, `/${kind}/${id}/print`, id, user);

async function pdfText(route: typeof mocPdf, kind: "mocs" | "pcrs", id: string, user: { _id: string }) {
  const request = await buildRequest({ path: `/${kind}/${id}/pdf`, ...(await asUser(user)) });
  const response = await route.loader({ request, params: { id }, context: {} } as never);
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/pdf");
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
  const file = path.join(mkdtempSync(path.join(tmpdir(), "records-out-")), "record.pdf");
  writeFileSync(file, bytes);
  return {
    disposition: response.headers.get("Content-Disposition"),
    text: execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }),
  };
}

/** pdftotext may break a long line where the layout wrapped it; compare with whitespace folded. */
const folded = (text: string) => text.replace(/\s+/g, " ");

describe("MOC print view and PDF", () => {
  it("gives each person involved and an admin the whole record; outsiders get 403", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast, { verifier: true });
    const admin = await makeAdmin();
    for (const person of [cast.originator, cast.implementer, cast.hseq, cast.approver, cast.verifier, admin]) {
      const res = await printOf(mocPrint, "mocs", moc._id, person);
      expect(res.status).toBe(200);
    }
    // A completed MOC is open to everyone (docs/security.md); one still running is not.
    const running = await mocAt("e", await makeCast());
    const outsider = await makeUser({ department: "operations" });
    expect((await printOf(mocPrint, "mocs", running._id, outsider)).status).toBe(403);
    expect((await printOf(mocPrint, "mocs", moc._id, outsider)).status).toBe(200);
    expect((await printOf(mocPrint, "mocs", "00000000-0000-4000-8000-000000000000", admin)).status).toBe(404);

    const record: PrintRecord = (await printOf(mocPrint, "mocs", moc._id, cast.originator)).body!.record;
    expect(record.title).toBe(`MOC ${moc.serial_num}`);
    expect(record.status).toBe("Completed");
    // Every decision of the pipeline is a signature block: who, position, UTC time, meaning.
    const meanings = record.signatures.map((s) => `${s.role}: ${s.name}`);
    expect(meanings).toEqual([
      `Originator: ${cast.originator.name}`,
      `Implementer: ${cast.implementer.name}`,
      `HSEQ user: ${cast.hseq.name}`,
      `Approver: ${cast.approver.name}`,
      `Implementer: ${cast.implementer.name}`,
      `Verifier: ${cast.verifier.name}`,
    ]);
    for (const s of record.signatures) {
      expect(s.at).toMatch(/Z$/);
      expect(s.meaning.length).toBeGreaterThan(5);
    }
    // Every audit entry is in the history, in order.
    expect(record.history.map((h) => h.action)).toEqual(moc.logs.map((l: { action: string }) => l.action));
    expect(record.sections.map((s) => s.title)).toEqual(
      expect.arrayContaining([
        "Part A — Originator",
        "Part F — Verification",
        "Action plan",
        "Deviation and extension history",
      ]),
    );
  });

  it("prints a PDF named after the record with its serial, status, signers, meanings and page count", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast, { verifier: true });
    const { text, disposition } = await pdfText(mocPdf, "mocs", moc._id, cast.approver);
    expect(disposition).toBe(`attachment; filename="MOC-${moc.serial_num}.pdf"`);
    const all = folded(text);
    expect(all).toContain(`MOC ${moc.serial_num}`);
    expect(all).toContain("Status: Completed");
    for (const person of [cast.originator, cast.implementer, cast.hseq, cast.approver, cast.verifier]) {
      expect(all).toContain(person.name);
    }
    expect(all).toContain("Approved the change");
    expect(all).toContain("Verified the change as effective and closed the MOC");
    const pages = [...text.matchAll(/Page (\d+) of (\d+)/g)];
    expect(pages.length).toBeGreaterThan(0);
    const total = Number(pages[0]![2]);
    expect(pages.map((p) => Number(p[1]))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(all).toMatch(/Generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });

  it("refuses the PDF to outsiders", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const outsider = await makeUser();
    expect((await load(mocPdf, `/mocs/${moc._id}/pdf`, moc._id, outsider)).status).toBe(403);
  });
});

describe("PCR print view and PDF", () => {
  it("shows every slot and affected party, with who signed, their position, the time and the meaning", async () => {
    const originator = await makeUser({ name: "Olga Originator" });
    const party = await makeUser({ name: "Pál Party", department: "engineering" });
    const holders = await makeHolders("print");
    const pcr = await createPcrOk(originator, { parties: [party] });
    await signOk(originator, pcr._id, "Change Originator");
    await signChain(pcr._id, holders, POSITION_ROLES.slice(0, 2));
    expect((await partySign(party, pcr._id, { comments: "Fine by the technical department" })).status).toBe(200);

    for (const person of [originator, party, holders["VP Fleet Management"], await makeAdmin()]) {
      expect((await printOf(pcrPrint, "pcrs", pcr._id, person)).status).toBe(200);
    }
    const record: PrintRecord = (await printOf(pcrPrint, "pcrs", pcr._id, originator)).body!.record;
    expect(record.signatures).toHaveLength(7);
    expect(record.signatures.slice(0, 3).map((s) => [s.name, s.state])).toEqual([
      ["Olga Originator", "signed"],
      [holders["VP Fleet Management"].name, "signed"],
      [holders["HSEQ Coordinator"].name, "signed"],
    ]);
    expect(record.signatures[3]!.state).toBe("unsigned");
    expect(record.signatures[6]).toMatchObject({ role: "Affected party", name: "Pál Party", state: "signed" });
    expect(record.history.map((h) => h.action)).toEqual([
      "Created",
      "Signed as Change Originator",
      "Signed as VP Fleet Management",
      "Signed as HSEQ Coordinator",
      "Signed as Affected party",
    ]);

    const { text, disposition } = await pdfText(pcrPdf, "pcrs", pcr._id, party);
    expect(disposition).toBe(`attachment; filename="PCR-${pcr.serial_num}.pdf"`);
    const all = folded(text);
    expect(all).toContain(`PCR ${pcr.serial_num}`);
    expect(all).toContain("Status: Collecting signatures");
    expect(all).toContain("Pál Party");
    expect(all).toContain("Olga Originator");
    expect(all).toContain("Reviewed and approved as VP Fleet Management");
    expect(all).toContain("Reviewed as an affected party");
    expect(all).toMatch(/Page 1 of \d+/);
  });

  it("refuses outsiders a PCR's print view and PDF", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const outsider = await makeUser({ department: "engineering" });
    expect((await printOf(pcrPrint, "pcrs", pcr._id, outsider)).status).toBe(403);
    expect((await load(pcrPdf, `/pcrs/${pcr._id}/pdf`, pcr._id, outsider)).status).toBe(403);
  });
});
