/**
 * External references (issue 42, docs/decisions/057-record-links-and-references.md) on a real
 * database: the reference types admins keep on /admin/references (seeded; add, rename, template,
 * reorder, deactivate, each in the settings chain; a bad template 400 and a non-admin 403, each
 * changing nothing), GET /api/referenceTypes; references added to and removed from a MOC, a PCR and
 * an archive record through /api/references (201/200, 400, 403, 404, 409), each in the record's
 * chain, which still verifies; the link built from the template with the number URL-encoded;
 * search by number; the CSV exports' "References" column; and a reader who may not read the
 * record (403, nothing listed).
 */
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED_REFERENCE_TYPES } from "#db/schema";
import * as referencesPage from "~/routes/admin+/references";
import * as referencesRoute from "~/routes/api+/references";
import * as referenceTypesRoute from "~/routes/api+/referenceTypes";
import * as getAllMoc from "~/routes/api+/getAllMoc";
import * as allPcr from "~/routes/api+/allPcr";
import * as oldMocRoute from "~/routes/api+/oldMoc";
import * as mocPage from "~/routes/mocs+/$id._index";
import * as pcrPage from "~/routes/pcrs+/$id";
import * as archivePage from "~/routes/archive+/$kind.$id._index";
import * as reviewPage from "~/routes/reviews+/$id._index";
import * as reviewRoute from "~/routes/api+/year-end-review";
import { mocRecordFor, pcrRecordFor } from "~/web/record-out.server";
import { historyOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { REFERENCE_TYPES_RECORD } from "~/models/records/references.constants";
import { referenceUrl } from "~/models/records/references.constants";
import { search } from "~/models/records/search.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt, tokenOf, type Doc } from "../helpers/moc-flow";
import type { Cast } from "../helpers/moc";
import { createPcrOk, type PcrDoc } from "../helpers/pcr";
import { buildRequest, call, type CallOptions } from "../helpers/request";
import { page, postForm as post } from "../helpers/page";

const changeTypes = (who: PublicUser, form: Record<string, string>) =>
  post(referencesPage, who, "/admin/references", form);

const referencesApi = async (who: { _id: string } | null, options: CallOptions = {}) =>
  api(referencesRoute, { path: "/api/references", ...options, token: who ? await tokenOf(who) : undefined });
const add = (who: { _id: string } | null, body: unknown) => referencesApi(who, { method: "POST", body });
const list = (who: { _id: string } | null, record: string) => referencesApi(who, { query: { record } });
const remove = (who: { _id: string } | null, id: string) => referencesApi(who, { method: "DELETE", query: { id } });

const typeList = async () => [
  ...(await getDb().execute<{ id: string; name: string; active: boolean; url_template: string | null }>(
    sql`select id, name, active, url_template from reference_types order by sort, name`,
  )),
];
const typeNamed = async (name: string) => (await typeList()).find((t) => t.name === name)!;
const settingsEntries = async () =>
  (await historyOf("settings", REFERENCE_TYPES_RECORD)).map((h) => [h.action, h.from, h.to]);
const referenceRows = async () =>
  Number((await getDb().execute<{ n: number }>(sql`select count(*)::int as n from record_references`))[0]!.n);

async function csvRows(route: typeof getAllMoc, path: string, user: { _id: string }, query: Record<string, string>) {
  const request = await buildRequest({
    path,
    query: { ...query, format: "csv" },
    token: await tokenFor(user as never),
  });
  const res = await route.loader({ request, params: {}, context: {} } as never);
  expect(res.status).toBe(200);
  return parse(
    Buffer.from(await res.arrayBuffer())
      .subarray(3)
      .toString("utf8"),
  ) as string[][];
}

let admin: PublicUser;
let hseq: PublicUser;
let stranger: PublicUser;
let cast: Cast;
let moc: Doc;
let completed: Doc;
let pcrOriginator: PublicUser;
let pcr: PcrDoc;
let legacyId: string;
let pms: { id: string; name: string };

beforeAll(async () => {
  [admin, hseq, stranger, pcrOriginator] = await Promise.all([
    makeAdmin({ name: "Ada Admin" }),
    makeUser({ name: "Hal Hseq", department: "hseq" }),
    makeUser({ name: "Sam Stranger", department: "engineering" }),
    makeUser({ name: "Pia Pcr", department: "fleet" }),
  ]);
  cast = await makeCast();
  [moc, completed, pcr] = await Promise.all([
    mocAt("b", cast),
    mocAt("completed", await makeCast()),
    createPcrOk(pcrOriginator),
  ]);
  const created = await api(oldMocRoute, {
    method: "POST",
    path: "/api/oldMoc",
    token: await tokenOf(admin),
    body: {
      serial_num: "77-2012",
      title: "Paper record of a ballast change",
      description: "Ballast pump",
      department: "engineering",
      originator_name: "Jan de Vries",
      date_raised: "2012-03-02",
      date_closed: null,
      status: "open",
      attachments: [],
      notes: "",
    },
  });
  expect(created.status, created.text).toBe(200);
  legacyId = created.body.data._id;
}, 120_000);
afterAll(async () => closeDb());

describe("reference types", () => {
  it("are seeded, and anyone signed in reads them through GET /api/referenceTypes", async () => {
    const res = await api(referenceTypesRoute, { path: "/api/referenceTypes", token: await tokenOf(stranger) });
    expect(res.status, res.text).toBe(200);
    const names = (res.body.data as { name: string }[]).map((t) => t.name);
    expect(names.slice(0, SEEDED_REFERENCE_TYPES.length)).toEqual([...SEEDED_REFERENCE_TYPES]);
    expect(res.body.data[0]).toMatchObject({ name: "Incident", urlTemplate: null, active: true });
    const anonymous = await api(referenceTypesRoute, { path: "/api/referenceTypes" });
    expect(anonymous.status).toBe(401);
  });

  it("an admin sets a template, adds, renames, moves and deactivates a type; each change is in the settings chain", async () => {
    const before = (await settingsEntries()).length;
    const work = await typeNamed("PMS work order");
    const set = await changeTypes(admin, {
      intent: "template",
      type: work.id,
      template: "https://pms.example/wo/{ref}",
    });
    expect(set.status, JSON.stringify(set.body)).toBe(302);
    expect((await typeNamed("PMS work order")).url_template).toBe("https://pms.example/wo/{ref}");

    const added = await changeTypes(admin, {
      intent: "add",
      name: "Port state inspection",
      template: "http://psc.example/find?no={ref}&src=cm",
    });
    expect(added.status, JSON.stringify(added.body)).toBe(302);
    const psc = await typeNamed("Port state inspection");
    expect(psc.url_template).toBe("http://psc.example/find?no={ref}&src=cm");
    expect((await typeList()).at(-1)!.name).toBe("Port state inspection");

    expect((await changeTypes(admin, { intent: "rename", type: psc.id, name: "PSC inspection" })).status).toBe(302);
    expect((await changeTypes(admin, { intent: "up", type: psc.id })).status).toBe(302);
    const names = (await typeList()).map((t) => t.name);
    expect(names.indexOf("PSC inspection")).toBe(names.length - 2);
    expect((await changeTypes(admin, { intent: "deactivate", type: psc.id })).status).toBe(302);
    expect((await typeNamed("PSC inspection")).active).toBe(false);

    const entries = (await settingsEntries()).slice(before);
    expect(entries.map((e) => e[0])).toEqual([
      "Set the URL template of PMS work order",
      "Added a reference type",
      "Renamed a reference type",
      "Moved a reference type up",
      "Deactivated a reference type",
    ]);
    expect(entries[0]).toEqual(["Set the URL template of PMS work order", null, "https://pms.example/wo/{ref}"]);
    expect(entries[2]).toEqual(["Renamed a reference type", "Port state inspection", "PSC inspection"]);
    pms = { id: work.id, name: work.name };
  });

  it("refuses a bad template or name (400, by field) and anyone but an admin (403), each changing nothing", async () => {
    const before = { types: await typeList(), entries: (await settingsEntries()).length };
    const incident = await typeNamed("Incident");
    for (const template of [
      "https://pms.example/wo/",
      "ftp://pms.example/{ref}",
      "javascript:alert(1)//{ref}",
      "pms.example/{ref}",
      "https:// pms.example/{ref}",
    ]) {
      const refused = await changeTypes(admin, { intent: "template", type: incident.id, template });
      expect(refused.status, template).toBe(400);
      expect(refused.body.field).toBe("template");
      expect(refused.body.template).toBe(template);
    }
    const badAdd = await changeTypes(admin, { intent: "add", name: "Audit finding", template: "https://x.example/" });
    expect(badAdd.status).toBe(400);
    expect(badAdd.body).toMatchObject({ form: "add", field: "template", name: "Audit finding" });
    expect(badAdd.body.message).toMatch(/\{ref\}/);
    const taken = await changeTypes(admin, { intent: "add", name: "incident" });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({ form: "add", field: "name" });
    expect((await changeTypes(admin, { intent: "rename", type: incident.id, name: "  " })).status).toBe(400);
    expect((await changeTypes(admin, { intent: "rename", type: crypto.randomUUID(), name: "X" })).status).toBe(404);

    for (const who of [hseq, stranger]) {
      expect((await changeTypes(who, { intent: "add", name: "Sneaky" })).status).toBe(403);
      expect((await page(referencesPage, who, { path: "/admin/references" })).status).toBe(403);
    }
    expect(await typeList()).toEqual(before.types);
    expect((await settingsEntries()).length).toBe(before.entries);
  });
});

describe("references on records", () => {
  it("builds the link from the template, the number URL-encoded", () => {
    expect(referenceUrl("https://pms.example/wo/{ref}", "WO-1234")).toBe("https://pms.example/wo/WO-1234");
    expect(referenceUrl("https://x.example/?q={ref}&again={ref}", "A/1 &b#c")).toBe(
      "https://x.example/?q=A%2F1%20%26b%23c&again=A%2F1%20%26b%23c",
    );
    expect(referenceUrl(null, "INC-7")).toBeNull();
  });

  it("a MOC's originator adds references (201), read back with their links; each is in the MOC's chain", async () => {
    const record = `moc:${moc._id}`;
    const first = await add(cast.originator, { record, type: pms.id, ref: "  WO-1234 " });
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toMatchObject({
      record,
      typeId: pms.id,
      typeName: "PMS work order",
      ref: "WO-1234",
      url: "https://pms.example/wo/WO-1234",
      addedBy: { _id: cast.originator._id, name: cast.originator.name },
    });
    // The type by its name, any case; a number with characters a URL must encode.
    const second = await add(cast.implementer, { record, type: "incident", ref: "INC-7" });
    expect(second.status, second.text).toBe(201);
    expect(second.body.data.url).toBeNull();
    const third = await add(hseq, { record, type: "PMS work order", ref: "WO 9/10&x" });
    expect(third.status, third.text).toBe(201);
    expect(third.body.data.url).toBe("https://pms.example/wo/WO%209%2F10%26x");

    const listed = await list(cast.implementer, record);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.references.map((r: { typeName: string; ref: string }) => `${r.typeName} ${r.ref}`)).toEqual(
      ["Incident INC-7", "PMS work order WO 9/10&x", "PMS work order WO-1234"],
    );

    const trail = (await historyOf("moc", moc._id)).filter((h) => h.action === "Added an external reference");
    expect(trail.map((h) => h.comment)).toEqual([
      "PMS work order WO-1234",
      "Incident INC-7",
      "PMS work order WO 9/10&x",
    ]);
    // A note that moves nothing: from and to the MOC's status.
    const [row] = await getDb().execute<{ status: string }>(sql`select status from mocs where id = ${moc._id}`);
    expect(trail.map((h) => [h.from, h.to])).toEqual(trail.map(() => [row!.status, row!.status]));
    const { broken } = await verifyAuditTrail();
    expect(broken.filter((b) => b.recordId === moc._id)).toEqual([]);
  });

  it("refuses a duplicate (409, the number compared without case) and bad input (400), each changing nothing", async () => {
    const record = `moc:${moc._id}`;
    const before = await referenceRows();
    const duplicate = await add(cast.originator, { record, type: pms.id, ref: "wo-1234" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toMatch(/already carries PMS work order wo-1234/);
    // Concurrent duplicates: one applies.
    const racing = await Promise.all(
      [1, 2, 3].map(() => add(cast.originator, { record, type: "Near-miss", ref: "NM-55" })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);

    const bad: [unknown, string][] = [
      [{ record, type: pms.id, ref: "" }, "ref"],
      [{ record, type: pms.id, ref: "   " }, "ref"],
      [{ record, type: pms.id, ref: "x".repeat(101) }, "ref"],
      [{ record, type: pms.id, ref: "WO\n12" }, "ref"],
      [{ record, type: pms.id, ref: "WO\u0000" }, "ref"],
      [{ record, type: pms.id, ref: "WO\u202e21" }, "ref"],
      [{ record, type: pms.id, ref: 12 }, "ref"],
      [{ record, type: "Tanker vetting", ref: "V-1" }, "type"],
      [{ record, type: (await typeNamed("PSC inspection")).id, ref: "P-1" }, "type"],
      [{ record, ref: "X-1" }, "type"],
      [{ record: `moc:${moc._id.slice(0, 8)}`, type: pms.id, ref: "X-1" }, "record"],
      [{ record: `mcr:${moc._id}`, type: pms.id, ref: "X-1" }, "record"],
      [{ type: pms.id, ref: "X-1" }, "record"],
    ];
    for (const [body, path] of bad) {
      const res = await add(cast.originator, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.body.issues.map((i: { path: string }) => i.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const notJson = await referencesApi(cast.originator, { method: "POST", body: "[" as never });
    expect(notJson.status).toBe(400);
    const unknown = await add(cast.originator, { record: `moc:${crypto.randomUUID()}`, type: pms.id, ref: "X-1" });
    expect(unknown.status).toBe(404);
    expect(await referenceRows()).toBe(before + 1);
  });

  it("a reader who may not read the record gets 403 and sees nothing; one who reads but does not keep it may not change it", async () => {
    const record = `moc:${moc._id}`;
    const before = await referenceRows();
    expect((await list(stranger, record)).status).toBe(403);
    expect((await add(stranger, { record, type: pms.id, ref: "WO-1" })).status).toBe(403);
    expect((await list(null, record)).status).toBe(401);
    // A completed MOC is read by everyone; its references are changed by its people, HSEQ and admins.
    const done = `moc:${completed._id}`;
    expect((await list(stranger, done)).status).toBe(200);
    const refused = await add(stranger, { record: done, type: pms.id, ref: "WO-2" });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/not change its references/);
    expect((await add(admin, { record: done, type: pms.id, ref: "WO-2" })).status).toBe(201);
    const [reference] = (await list(stranger, done)).body.data.references;
    expect((await remove(stranger, reference.id)).status).toBe(403);
    expect(await referenceRows()).toBe(before + 1);
    // The page shows a reader the section without the form.
    const shown = await page(mocPage, stranger, { path: `/mocs/${completed._id}`, params: { id: completed._id } });
    expect(shown.status).toBe(200);
    expect(shown.body.references).toMatchObject({ mayManage: false });
    expect(shown.body.references.references.map((r: { ref: string }) => r.ref)).toEqual(["WO-2"]);
  });

  it("removes a reference (softly), with its entry in the chain; again is 404, a bad id 400", async () => {
    const record = `moc:${moc._id}`;
    const [incident] = (await list(cast.originator, record)).body.data.references.filter(
      (r: { ref: string }) => r.ref === "INC-7",
    );
    const removed = await remove(hseq, incident.id);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toMatchObject({ id: incident.id, ref: "INC-7", typeName: "Incident" });
    expect((await list(cast.originator, record)).body.data.references.map((r: { ref: string }) => r.ref)).not.toContain(
      "INC-7",
    );
    expect((await remove(hseq, incident.id)).status).toBe(404);
    expect((await remove(hseq, "12")).status).toBe(400);
    expect((await referencesApi(hseq, { method: "DELETE" })).status).toBe(400);
    const [row] = await getDb().execute<{ removed_by: string }>(
      sql`select removed_by from record_references where id = ${incident.id}`,
    );
    expect(row!.removed_by).toBe(hseq._id);
    const last = (await historyOf("moc", moc._id)).at(-1)!;
    expect([last.action, last.comment]).toEqual(["Removed an external reference", "Incident INC-7"]);
    // Removed, it may be added again.
    expect((await add(cast.originator, { record, type: "Incident", ref: "INC-7" })).status).toBe(201);
  });

  it("a PCR's originator and an archive record's writers add them, in those records' chains", async () => {
    const onPcr = await add(pcrOriginator, { record: `pcr:${pcr._id}`, type: "Purchase requisition", ref: "PR-88" });
    expect(onPcr.status, onPcr.text).toBe(201);
    expect((await add(stranger, { record: `pcr:${pcr._id}`, type: "Incident", ref: "I-1" })).status).toBe(403);
    const pcrTrail = await historyOf("pcr", pcr._id);
    expect(pcrTrail.at(-1)).toMatchObject({ action: "Added an external reference", to: "Purchase requisition PR-88" });

    const archived = `archive-moc:${legacyId}`;
    expect((await add(stranger, { record: archived, type: "Incident", ref: "INC-2012-4" })).status).toBe(403);
    const onArchive = await add(hseq, { record: archived, type: "Incident", ref: "INC-2012-4" });
    expect(onArchive.status, onArchive.text).toBe(201);
    expect((await list(stranger, archived)).body.data.references).toHaveLength(1);
    expect((await historyOf("archive-moc", legacyId)).at(-1)).toMatchObject({
      action: "Added an external reference",
      to: "Incident INC-2012-4",
    });
    const { broken } = await verifyAuditTrail();
    expect(broken.filter((b) => [pcr._id, legacyId, moc._id].includes(b.recordId))).toEqual([]);
  });

  it("search finds a record by a reference's number, as its readers may; a removed one no longer", async () => {
    const found = await search(cast.originator, "WO-1234");
    expect(found.mocs.results.map((h) => h._id)).toContain(moc._id);
    expect((await search(cast.originator, "WO1234")).mocs.results.map((h) => h._id)).toContain(moc._id);
    expect((await search(stranger, "WO-1234")).mocs.results.map((h) => h._id)).not.toContain(moc._id);
    expect((await search(admin, "PR-88")).pcrs.results.map((h) => h._id)).toContain(pcr._id);
    expect((await search(admin, "INC-2012-4")).archive.results.map((h) => h._id)).toContain(legacyId);

    const [wo] = (await list(cast.originator, `moc:${moc._id}`)).body.data.references.filter(
      (r: { ref: string }) => r.ref === "WO-1234",
    );
    expect((await remove(cast.originator, wo.id)).status).toBe(200);
    expect((await search(cast.originator, "WO-1234")).mocs.results.map((h) => h._id)).not.toContain(moc._id);
    expect((await add(cast.originator, { record: `moc:${moc._id}`, type: pms.id, ref: "WO-1234" })).status).toBe(201);
  });

  it("the MOC, PCR and archive CSV carry a References column (last), in the types' order", async () => {
    const mocRows = await csvRows(getAllMoc, "/api/getAllMoc", cast.originator, { q: moc.serial_num });
    expect(mocRows[0]!.at(-1)).toBe("References");
    const mocRow = mocRows.find((r) => r[0] === moc.serial_num)!;
    expect(mocRow.at(-1)).toBe("Incident INC-7; Near-miss NM-55; PMS work order WO 9/10&x; PMS work order WO-1234");
    const pcrRows = await csvRows(allPcr as never, "/api/allPcr", pcrOriginator, { q: pcr.serial_num });
    expect(pcrRows[0]!.at(-1)).toBe("References");
    expect(pcrRows.find((r) => r[0] === pcr.serial_num)!.at(-1)).toBe("Purchase requisition PR-88");
    const archiveRows = await csvRows(oldMocRoute as never, "/api/oldMoc", admin, { q: "77-2012" });
    expect(archiveRows[0]!.at(-1)).toBe("References");
    expect(archiveRows.find((r) => r[0] === "77-2012")!.at(-1)).toBe("Incident INC-2012-4");
  });

  it("a reference starting with a formula character is inert in the CSV", async () => {
    const record = `pcr:${pcr._id}`;
    expect((await add(pcrOriginator, { record, type: "Incident", ref: "=1+2" })).status).toBe(201);
    const rows = await csvRows(allPcr as never, "/api/allPcr", pcrOriginator, { q: pcr.serial_num });
    // "Incident =1+2" does not start a formula, but the separator rule still guards "; =…".
    expect(rows.find((r) => r[0] === pcr.serial_num)!.at(-1)).toBe("Incident =1+2; Purchase requisition PR-88");
    const direct = await call(referencesRoute, {
      path: "/api/references",
      query: { record },
      token: await tokenOf(admin),
    });
    expect(direct.body.data.references).toHaveLength(2);
  });
});

describe("the record pages' References section (plain form posts)", () => {
  const addForm = (ref: string, type = pms.id) => ({ intent: "add-reference", type, ref });

  it("the MOC page adds one, answers a bad number by its field, and removes one", async () => {
    const path = `/mocs/${moc._id}`;
    const params = { id: moc._id };
    const bad = await post(mocPage, cast.originator, path, addForm("WO\t1"), params);
    expect(bad.status).toBe(400);
    expect(bad.body.references.fieldErrors.ref).toMatch(/control characters/);
    expect(bad.body.references.typed).toEqual({ type: pms.id, ref: "WO\t1" });
    const duplicate = await post(mocPage, cast.originator, path, addForm("WO-1234"), params);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.references.fieldErrors.ref).toMatch(/already carries/);
    const added = await post(mocPage, cast.originator, path, addForm("WO-777"), params);
    expect(added.status).toBe(302);
    const shown = await page(mocPage, cast.originator, { path, params });
    expect(shown.body.references.mayManage).toBe(true);
    const wo = shown.body.references.references.find((r: { ref: string }) => r.ref === "WO-777");
    expect(wo.url).toBe("https://pms.example/wo/WO-777");
    // Someone who reads the MOC but does not keep it: refused, nothing changed.
    const refused = await post(mocPage, stranger, `/mocs/${completed._id}`, addForm("WO-3"), { id: completed._id });
    expect(refused.status).toBe(403);
    const removed = await post(
      mocPage,
      cast.originator,
      path,
      { intent: "remove-reference", reference: wo.id },
      params,
    );
    expect(removed.status).toBe(302);
    expect(
      (await list(cast.originator, `moc:${moc._id}`)).body.data.references.map((r: { ref: string }) => r.ref),
    ).not.toContain("WO-777");
  });

  it("the PCR, archive and year-end review pages show and take them", async () => {
    const pcrShown = await page(pcrPage, pcrOriginator, { path: `/pcrs/${pcr._id}`, params: { id: pcr._id } });
    expect(pcrShown.body.references.references.map((r: { ref: string }) => r.ref)).toContain("PR-88");
    expect((await post(pcrPage, pcrOriginator, `/pcrs/${pcr._id}`, addForm("WO-55"), { id: pcr._id })).status).toBe(
      302,
    );

    const archiveParams = { kind: "mocs", id: legacyId };
    const archivePath = `/archive/mocs/${legacyId}`;
    const readerView = await page(archivePage, stranger, { path: archivePath, params: archiveParams });
    expect(readerView.body.references).toMatchObject({ mayManage: false });
    expect((await post(archivePage, stranger, archivePath, addForm("WO-8"), archiveParams)).status).toBe(403);
    expect((await post(archivePage, hseq, archivePath, addForm("WO-8"), archiveParams)).status).toBe(302);

    const review = await api(reviewRoute, {
      path: "/api/year-end-review",
      method: "POST",
      token: await tokenOf(admin),
      body: { year: 1991, title: "Year-end review 1991", sections: [], participants: [], actions: [] },
    });
    expect(review.status, review.text).toBe(200);
    const reviewId = review.body.data._id;
    const reviewPath = `/reviews/${reviewId}`;
    expect(
      (
        await post(reviewPage, hseq, reviewPath, addForm("CLASS-2021-9", "Class or flag correspondence"), {
          id: reviewId,
        })
      ).status,
    ).toBe(302);
    const reviewShown = await page(reviewPage, stranger, { path: reviewPath, params: { id: reviewId } });
    expect(
      reviewShown.body.references.references.map((r: { typeName: string; ref: string }) => `${r.typeName} ${r.ref}`),
    ).toEqual(["Class or flag correspondence CLASS-2021-9"]);
    expect((await historyOf("review", reviewId)).at(-1)).toMatchObject({ action: "Added an external reference" });
  });

  it("print and PDF carry a References section, each address written out", async () => {
    const request = await buildRequest({
      path: `/mocs/${moc._id}/print`,
      token: await tokenFor(cast.originator),
      cookie: true,
    });
    const record = await mocRecordFor(request, moc._id);
    const section = record.sections.find((s) => s.id === "references")!;
    expect(section.title).toBe("References");
    const table = section.blocks[0] as { rows: string[][] };
    expect(table.rows.map((r) => r.slice(0, 3))).toContainEqual([
      "PMS work order",
      "WO-1234",
      "https://pms.example/wo/WO-1234",
    ]);
    expect(table.rows.map((r) => r.slice(0, 3))).toContainEqual(["Incident", "INC-7", "—"]);
    const pcrRequest = await buildRequest({
      path: `/pcrs/${pcr._id}/print`,
      token: await tokenFor(pcrOriginator),
      cookie: true,
    });
    const pcrRecord = await pcrRecordFor(pcrRequest, pcr._id);
    const pcrRows = (pcrRecord.sections.find((s) => s.id === "references")!.blocks[0] as { rows: string[][] }).rows;
    expect(pcrRows.map((r) => r[1])).toContain("PR-88");
  });
});
