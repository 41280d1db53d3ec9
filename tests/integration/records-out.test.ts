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
import { historyOf, signaturesOf } from "~/models/audit/audit.server";
import { loadMocDocument } from "~/models/moc/moc-query.server";
import { clonePcr, getPcr, updatePcr } from "~/models/pcr/pcr.server";
import {
  RECONSTRUCTED_HISTORY,
  RECONSTRUCTED_SIGNATURE,
  type PrintRecord,
} from "~/models/records-out/record-print.server";
import { mocPrintSignatures } from "~/models/moc/moc-print.server";
import { pcrPrintHistory, pcrPrintSignatures } from "~/models/pcr/pcr-print.server";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk, currentParties, makeHolders, partySign, POSITION_ROLES, signChain, signOk } from "../helpers/pcr";
import { buildRequest } from "../helpers/request";
import { api } from "../helpers/api";
import * as usersRoute from "~/routes/api+/users";

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
    // Every stored manifestation is a signature block: printed name, position, UTC time, meaning.
    const manifestations = await signaturesOf("moc", moc._id);
    expect(manifestations.map((m) => `${m.role}: ${m.printedName}`)).toEqual([
      `Implementer: ${cast.implementer.name}`,
      `HSEQ reviewer: ${cast.hseq.name}`,
      `Approver: ${cast.approver.name}`,
      `Verifier: ${cast.verifier.name}`,
    ]);
    expect(record.signatures).toEqual(
      manifestations.map((m) => ({
        role: m.role,
        name: m.printedName,
        position: m.position ?? m.role,
        at: m.signedAt,
        meaning: m.meaning.charAt(0).toUpperCase() + m.meaning.slice(1),
        state: "signed",
        mark: null,
        image: null,
        comment: null,
        reconstructed: null,
      })),
    );
    expect(record.signatures.map((s) => s.meaning)).toContain("Verified and closed");
    // Every audit entry is in the history, in order.
    const trail = await historyOf("moc", moc._id);
    expect(record.history.map((h) => [h.at, h.who, h.action])).toEqual(trail.map((e) => [e.at, e.actorName, e.action]));
    expect(record.sections.map((s) => s.title)).toEqual(
      expect.arrayContaining([
        "Part A — Originator",
        "Part F — Verification",
        "Action plan",
        "Manuals and drawings plan",
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
    const manifestations = await signaturesOf("moc", moc._id);
    expect(manifestations).toHaveLength(4);
    for (const m of manifestations) {
      expect(all).toContain(`${m.role} Name ${m.printedName}`);
      expect(all).toContain(`Meaning ${m.meaning.charAt(0).toUpperCase()}${m.meaning.slice(1)}`);
    }
    expect(all).not.toContain("reconstructed");
    const pages = [...text.matchAll(/Page (\d+) of (\d+)/g)];
    expect(pages.length).toBeGreaterThan(0);
    const total = Number(pages[0]![2]);
    expect(pages.map((p) => Number(p[1]))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(all).toMatch(/Generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });

  it("rebuilds, and marks, the signatures of decisions taken before manifestations were kept", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast, { verifier: true });
    const doc = (await printOf(mocPrint, "mocs", moc._id, cast.originator)).body!.record;
    const stored = await signaturesOf("moc", moc._id);
    // An older MOC: its log as it is, without the manifestations (none, or only the later ones).
    const source = (await loadMocDocument(moc._id))!;
    const none = mocPrintSignatures({ ...source, signatureManifestations: [] });
    expect(none.map((s) => [s.role, s.name, s.meaning])).toEqual([
      ["Implementer", cast.implementer.name, "Assessed the change as necessary and justified"],
      ["HSEQ reviewer", cast.hseq.name, "Reviewed the change and its risk assessment (HSEQ)"],
      ["Approver", cast.approver.name, "Approved the change"],
      ["Verifier", cast.verifier.name, "Verified the change as effective and closed the MOC"],
    ]);
    expect(none.every((s) => s.reconstructed === RECONSTRUCTED_SIGNATURE)).toBe(true);
    const later = mocPrintSignatures({ ...source, signatureManifestations: stored.slice(2) });
    expect(later.map((s) => [s.name, s.reconstructed !== null])).toEqual([
      [cast.implementer.name, true],
      [cast.hseq.name, true],
      [cast.approver.name, false],
      [cast.verifier.name, false],
    ]);
    expect(later.slice(2)).toEqual(doc.signatures.slice(2));
  });

  it("refuses the PDF to outsiders", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const outsider = await makeUser();
    expect((await load(mocPdf, `/mocs/${moc._id}/pdf`, moc._id, outsider)).status).toBe(403);
  });
});

describe("a signature made under a name the account no longer has (issue 32 item 7)", () => {
  it("keeps the name at signing and shows the account's name now beside it: record, print and PDF", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast, { verifier: true });
    const admin = await makeAdmin();
    const before = cast.implementer.name;
    const renamed = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: await tokenFor(admin as never),
      body: { _id: cast.implementer._id, name: "Petra Nilsen" },
    });
    expect(renamed.status, renamed.text).toBe(200);

    const doc = (await loadMocDocument(moc._id))!;
    const implementerSigned = doc.signatureManifestations.find((m) => m.signerId === cast.implementer._id)!;
    expect(implementerSigned).toMatchObject({ printedName: before, accountName: "Petra Nilsen" });
    // Nobody else was renamed: no name beside theirs.
    const others = doc.signatureManifestations.filter((m) => m.signerId !== cast.implementer._id);
    expect(others.every((m) => m.accountName === null)).toBe(true);

    const record: PrintRecord = (await printOf(mocPrint, "mocs", moc._id, admin)).body!.record;
    expect(record.signatures.map((x) => x.name)).toContain(`${before} (account now named Petra Nilsen)`);
    const { text } = await pdfText(mocPdf, "mocs", moc._id, admin);
    expect(folded(text)).toContain(`${before} (account now named Petra Nilsen)`);
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
    const trail = await historyOf("pcr", pcr._id);
    expect(trail.map((e) => e.action)).toEqual([
      "Created",
      "Signed as Change Originator",
      "Signed as VP Fleet Management",
      "Signed as HSEQ Coordinator",
      "Signed as affected party",
      "Commented as affected party",
    ]);
    expect(record.history.map((h) => [h.at, h.who, h.action])).toEqual(trail.map((e) => [e.at, e.actorName, e.action]));
    const manifestations = await signaturesOf("pcr", pcr._id);
    expect(manifestations).toHaveLength(4);
    for (const m of manifestations) {
      expect(record.signatures).toContainEqual(
        expect.objectContaining({ role: m.role, name: m.printedName, at: m.signedAt, reconstructed: null }),
      );
    }

    const { text, disposition } = await pdfText(pcrPdf, "pcrs", pcr._id, party);
    expect(disposition).toBe(`attachment; filename="PCR-${pcr.serial_num}.pdf"`);
    const all = folded(text);
    expect(all).toContain(`PCR ${pcr.serial_num}`);
    expect(all).toContain("Status: Collecting signatures");
    expect(all).toContain("Pál Party");
    expect(all).toContain("Olga Originator");
    expect(all).toContain("Reviewed and approved as VP Fleet Management");
    expect(all).toContain("Reviewed as an affected party");
    for (const m of manifestations) expect(all).toContain(`Name ${m.printedName}`);
    expect(all).toMatch(/Page 1 of \d+/);
  });

  it("prints a PCR's whole audit trail and every manifestation, from creation to clone", async () => {
    const originator = await makeUser({ name: "Ode Originator" });
    const first = await makeUser({ name: "Fay First", department: "engineering" });
    const second = await makeUser({ name: "Sid Second", department: "operations" });
    const holders = await makeHolders("trail");
    const pcr = await createPcrOk(originator, { parties: [first] });
    await updatePcr(originator, pcr._id, {
      form: { "reason-for-change": "<p>The checklist misses the new valve</p>" },
      affectedParties: [
        ...(await currentParties(pcr._id)),
        { Name: { value: second._id }, Signature: false, Comments: "" },
      ],
    });
    await signOk(originator, pcr._id, "Change Originator");
    await signOk(holders["VP Fleet Management"], pcr._id, "VP Fleet Management", {
      signature: null,
      comments: "Check the drawing first",
    });
    for (const party of [first, second]) expect((await partySign(party, pcr._id)).status).toBe(200);
    const finished = await signChain(pcr._id, holders, POSITION_ROLES);
    expect(finished.status).toBe("finished");
    const copy = await clonePcr(originator, pcr.serial_num);

    const record: PrintRecord = (await printOf(pcrPrint, "pcrs", pcr._id, originator)).body!.record;
    const trail = await historyOf("pcr", pcr._id);
    expect(trail.map((e) => e.action)).toEqual([
      "Created",
      "Edited the form",
      "Changed the affected parties",
      "Signed as Change Originator",
      "Commented as VP Fleet Management",
      "Signed as affected party",
      "Signed as affected party",
      ...POSITION_ROLES.map((role) => `Signed as ${role}`),
      "Finished: every signature is in",
      `Cloned into PCR ${copy.serial_num}`,
    ]);
    expect(record.history.map((h) => [h.at, h.who, h.action])).toEqual(trail.map((e) => [e.at, e.actorName, e.action]));
    expect(record.history.find((h) => h.action === "Changed the affected parties")!.detail).toBe("“Added Sid Second”");
    expect(record.history.find((h) => h.action.startsWith("Commented"))!.detail).toBe("“Check the drawing first”");
    expect(record.history.find((h) => h.action.startsWith("Finished"))!.detail).toBe(
      "Collecting signatures → Finished",
    );
    expect(record.history.some((h) => h.detail?.includes("reconstructed"))).toBe(false);

    const manifestations = await signaturesOf("pcr", pcr._id);
    expect(manifestations).toHaveLength(8);
    expect(record.signatures).toHaveLength(8);
    for (const m of manifestations) {
      expect(record.signatures).toContainEqual(
        expect.objectContaining({
          role: m.role,
          name: m.printedName,
          at: m.signedAt,
          meaning: m.meaning.charAt(0).toUpperCase() + m.meaning.slice(1),
          state: "signed",
          reconstructed: null,
        }),
      );
    }
    // The commented-then-signed slot keeps its comment beside the manifestation.
    expect(record.signatures[1]).toMatchObject({ role: "VP Fleet Management", comment: "Check the drawing first" });

    const { text } = await pdfText(pcrPdf, "pcrs", pcr._id, originator);
    const all = folded(text);
    for (const m of manifestations) {
      expect(all).toContain(`Name ${m.printedName}`);
      expect(all).toContain(`Meaning ${m.meaning.charAt(0).toUpperCase()}${m.meaning.slice(1)}`);
    }
    expect(all).toContain(`Cloned into PCR ${copy.serial_num}`);
    const pages = [...text.matchAll(/Page (\d+) of (\d+)/g)];
    const total = Number(pages[0]![2]);
    expect(pages.map((p) => Number(p[1]))).toEqual(Array.from({ length: total }, (_, i) => i + 1));

    // The copy's own trail begins with where it came from.
    const copyRecord = (await printOf(pcrPrint, "pcrs", copy._id, originator)).body!.record;
    expect(copyRecord.history.map((h) => h.action)).toEqual([`Cloned from PCR ${pcr.serial_num}`]);
  });

  it("rebuilds, and marks, what a PCR did before its audit trail and manifestations", async () => {
    const originator = await makeUser({ name: "Lea Legacy" });
    const holders = await makeHolders("legacy");
    const pcr = await createPcrOk(originator);
    await signOk(originator, pcr._id, "Change Originator");
    const doc = await getPcr(originator, pcr._id);
    // An older PCR: its slots as stored, no manifestations and no trail.
    const old = { ...doc, signatureManifestations: [] };
    const signatures = pcrPrintSignatures(old);
    expect(signatures[0]).toMatchObject({
      role: "Change Originator",
      name: "Lea Legacy",
      meaning: "Reviewed and approved as Change Originator",
      reconstructed: RECONSTRUCTED_SIGNATURE,
    });
    expect(signatures.slice(1).every((s) => s.state === "unsigned" && s.reconstructed === null)).toBe(true);
    const history = pcrPrintHistory(old, []);
    expect(history.map((h) => [h.action, h.detail])).toEqual([
      ["Created", RECONSTRUCTED_HISTORY],
      ["Signed as Change Originator", RECONSTRUCTED_HISTORY],
    ]);
    // The same PCR as stored now: every block and entry from the manifestations and the trail.
    const now = pcrPrintHistory(doc, await historyOf("pcr", pcr._id));
    expect(now.map((h) => [h.action, h.detail])).toEqual([
      ["Created", null],
      ["Signed as Change Originator", null],
    ]);
    expect(pcrPrintSignatures(doc)[0]!.reconstructed).toBeNull();
    // A trail that begins later (a PCR made and signed before it): the earlier events come first, rebuilt.
    await signOk(holders["VP Fleet Management"], pcr._id, "VP Fleet Management");
    const current = await getPcr(originator, pcr._id);
    const older = {
      ...current,
      createdAt: "2020-01-01T08:00:00.000Z",
      signatures: current.signatures.map((s) =>
        s.Name === "Change Originator"
          ? { ...s, signatureDate: "2020-01-02", signedAt: "2020-01-02T08:00:00.000Z" }
          : s,
      ),
      signatureManifestations: current.signatureManifestations.filter((m) => m.role !== "Change Originator"),
    };
    const mixed = pcrPrintHistory(older, (await historyOf("pcr", pcr._id)).slice(2));
    expect(mixed.map((h) => [h.at, h.action, h.detail])).toEqual([
      ["2020-01-01T08:00:00.000Z", "Created", RECONSTRUCTED_HISTORY],
      ["2020-01-02T08:00:00.000Z", "Signed as Change Originator", RECONSTRUCTED_HISTORY],
      [expect.any(String), "Signed as VP Fleet Management", null],
    ]);
    const mixedSignatures = pcrPrintSignatures(older);
    expect(mixedSignatures.slice(0, 2).map((s) => s.reconstructed)).toEqual([RECONSTRUCTED_SIGNATURE, null]);
  });

  it("refuses outsiders a PCR's print view and PDF", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const outsider = await makeUser({ department: "engineering" });
    expect((await printOf(pcrPrint, "pcrs", pcr._id, outsider)).status).toBe(403);
    expect((await load(pcrPdf, `/pcrs/${pcr._id}/pdf`, pcr._id, outsider)).status).toBe(403);
  });
});
