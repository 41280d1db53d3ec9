/**
 * The vessel register, crew assignments, Part A's title and scope, and crew read access
 * (docs/decisions/036-vessels-and-crew-access.md): validation with the offending paths (a bad IMO
 * check digit is 400), admins alone write, a refused write changes nothing, a MOC without title or
 * scope reads "not recorded", and a person reads a vessel's MOCs only while assigned to it.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as vesselsRoute from "~/routes/api+/vessels";
import * as newMocPage from "~/routes/mocs+/new";
import { describeMocParts } from "~/models/moc/moc-parts.server";
import { buildRequest } from "../helpers/request";
import * as assignmentsRoute from "~/routes/api+/vessels.assignments";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as contextRoute from "~/routes/api+/titleAndVessel";
import { searchMocs } from "~/models/moc/moc-list.server";
import { vesselOverview } from "~/models/overview/vessel-page.server";
import { computeInsights } from "~/models/insights/insights.server";
import { insightTables } from "~/models/insights/insights-tables";
import { imoCheckDigitValid } from "~/models/fleet/vessel.schema";
import { canReadMoc, canViewMoc, isCrewOf, mocListScope } from "~/models/authz/authz.server";
import { loadMocAccess } from "~/models/moc/moc-query.server";
import { mocName, scopeOf, titleOf } from "~/models/moc/moc-names";
import { partAPageSchema } from "~/models/moc/moc.schema";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import { daysFromToday, newMocBody } from "../helpers/moc";
import { expectError, issuePaths, makeCast, tokenOf } from "../helpers/moc-flow";
import type { CallOptions } from "../helpers/request";

const as = async (
  route: Parameters<typeof api>[0],
  path: string,
  who: { _id: string } | null,
  options: CallOptions = {},
) => api(route, { path, ...options, token: who ? await tokenOf(who) : undefined });
const vesselsApi = (who: { _id: string } | null, options: CallOptions = {}) =>
  as(vesselsRoute, "/api/vessels", who, options);
const crewApi = (who: { _id: string } | null, options: CallOptions = {}) =>
  as(assignmentsRoute, "/api/vessels/assignments", who, options);

let admin: PublicUser;
let someone: PublicUser;
const counts = async () => {
  const [row] = await getDb().execute<{ v: number; a: number; e: number }>(sql`select
    (select count(*)::int from vessels) as v, (select count(*)::int from vessel_assignments) as a,
    (select count(*)::int from audit_entries where record_kind = 'vessel') as e`);
  return row!;
};

beforeAll(async () => {
  admin = await makeUser({ name: "Ada Admin", role: "admin", department: "engineering" });
  someone = await makeUser({ name: "Sam Someone", department: "fleet" });
});
afterAll(async () => closeDb());

describe("the IMO number's check digit", () => {
  it("accepts real numbers and refuses a wrong last digit", () => {
    for (const good of ["9074729", "9321483", "9176187"]) expect(imoCheckDigitValid(good), good).toBe(true);
    for (const bad of ["9074728", "907472", "90747290", "abcdefg", ""])
      expect(imoCheckDigitValid(bad), bad).toBe(false);
  });
});

describe("the vessel register", () => {
  it("adds, reads, edits and deletes a vessel (admins), each in the audit trail", async () => {
    const created = await vesselsApi(admin, {
      method: "POST",
      body: { name: "MV Nordic Star", imo: "IMO 9074729", ship_type: "Bulk carrier", flag: "Malta" },
    });
    expect(created.status, created.text).toBe(200);
    const vessel = created.body.data;
    expect(vessel).toMatchObject({
      name: "MV Nordic Star",
      imo: "9074729",
      ship_type: "Bulk carrier",
      flag: "Malta",
      active: true,
    });
    const list = await vesselsApi(someone);
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { _id: string }) => v._id)).toContain(vessel._id);
    expect((await vesselsApi(someone, { query: { id: vessel._id } })).body.data.name).toBe("MV Nordic Star");
    // A partial update changes only what it names.
    const edited = await vesselsApi(admin, { method: "PUT", query: { id: vessel._id }, body: { flag: "Cyprus" } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({
      name: "MV Nordic Star",
      imo: "9074729",
      flag: "Cyprus",
      ship_type: "Bulk carrier",
    });
    const deleted = await vesselsApi(admin, { method: "DELETE", query: { id: vessel._id } });
    expect(deleted.status, deleted.text).toBe(200);
    expectError(await vesselsApi(someone, { query: { id: vessel._id } }), 404);
    const [trail] = await getDb().execute<{ actions: string[] }>(sql`select array_agg(action order by seq) as actions
      from audit_entries where record_kind = 'vessel' and record_id = ${vessel._id}`);
    expect(trail!.actions).toEqual(["Added", "Edited", "Deleted"]);
  });

  it("refuses a bad IMO check digit and other bad input with 400 and the paths, writing nothing", async () => {
    const before = await counts();
    const badDigit = await vesselsApi(admin, { method: "POST", body: { name: "MV Wrong", imo: "9074728" } });
    expectError(badDigit, 400);
    expect(issuePaths(badDigit)).toEqual(["imo"]);
    expect(badDigit.body.issues[0].message).toMatch(/check digit/);
    for (const [body, paths] of [
      [{ name: "MV Short", imo: "907472" }, ["imo"]],
      [{ name: "", imo: "9321483" }, ["name"]],
      [{ imo: "9321483" }, ["name"]],
      [{ name: "MV \u202eX", imo: "9321483" }, ["name"]],
      [{ name: "MV Line\nBreak", imo: "9321483" }, ["name"]],
      [{ name: "MV Ok", imo: "9321483", active: "yes" }, ["active"]],
      [{ name: "MV Ok", imo: 9321483 }, ["imo"]],
    ] as const) {
      const res = await vesselsApi(admin, { method: "POST", body });
      expectError(res, 400);
      expect(issuePaths(res), JSON.stringify(body)).toEqual(paths);
    }
    expectError(await vesselsApi(admin, { method: "PUT", query: { id: "nope" }, body: { flag: "X" } }), 400);
    expect(await counts()).toEqual(before);
  });

  it("answers 409 for an IMO number already in the register, 403 for non-admins, 404 for unknown ids", async () => {
    const first = await vesselsApi(admin, { method: "POST", body: { name: "MV One", imo: "9321483" } });
    expect(first.status, first.text).toBe(200);
    const before = await counts();
    expectError(await vesselsApi(admin, { method: "POST", body: { name: "MV Two", imo: "9321483" } }), 409);
    expectError(await vesselsApi(someone, { method: "POST", body: { name: "MV Three", imo: "9176187" } }), 403);
    expectError(
      await vesselsApi(someone, { method: "PUT", query: { id: first.body.data._id }, body: { flag: "X" } }),
      403,
    );
    expectError(await vesselsApi(someone, { method: "DELETE", query: { id: first.body.data._id } }), 403);
    expectError(await vesselsApi(null), 401);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expectError(await vesselsApi(admin, { method: "PUT", query: { id: unknown }, body: { flag: "X" } }), 404);
    expectError(await vesselsApi(admin, { method: "DELETE", query: { id: unknown } }), 404);
    expectError(await vesselsApi(admin, { method: "PUT", query: { id: first.body.data._id }, body: {} }), 400);
    expect(await counts()).toEqual(before);
  });
});

describe("Part A's title and scope", () => {
  it("is optional over /api: a MOC without them reads 'not recorded'", async () => {
    const cast = await makeCast();
    const res = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer),
    });
    expect(res.status, res.text).toBe(200);
    const form = res.body.data.originator_form;
    expect(form.title).toBeUndefined();
    expect(form.vessel).toBeUndefined();
    expect(titleOf(form)).toBeNull();
    expect(scopeOf(form)).toBe("Not recorded");
    expect(mocName(res.body.data.serial_num, titleOf(form))).toBe(`MOC ${res.body.data.serial_num}`);
  });

  it("takes top-level `title` and `vessel` keys of POST /api/newmoc (a vessel, office or fleet)", async () => {
    const cast = await makeCast();
    const vessel = (await vesselsApi(admin, { method: "POST", body: { name: "MV Title Test", imo: "9176187" } })).body
      .data;
    const withVessel = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer, {
        title: { value: "  Bypass of ME2 HT alarm " },
        vessel: { value: { _id: vessel._id } },
      }),
    });
    expect(withVessel.status, withVessel.text).toBe(200);
    const doc = withVessel.body.data;
    expect(doc.originator_form.title).toEqual({ value: "Bypass of ME2 HT alarm" });
    expect(doc.originator_form.vessel).toEqual({ value: { _id: vessel._id, name: "MV Title Test" } });
    expect(mocName(doc.serial_num, titleOf(doc.originator_form))).toBe(
      `MOC ${doc.serial_num} — Bypass of ME2 HT alarm`,
    );
    for (const scope of ["office", "fleet"]) {
      const res = await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, { title: { value: "Shore procedure" }, vessel: { value: scope } }),
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.originator_form.vessel).toEqual({ value: scope });
    }
    expect(scopeOf({ vessel: { value: "office" } })).toBe("Office / shore");
    expect(scopeOf({ vessel: { value: "fleet" } })).toBe("Fleet-wide");
    // A renamed vessel reads its new name on the MOCs naming it.
    await vesselsApi(admin, { method: "PUT", query: { id: vessel._id }, body: { name: "MV Renamed" } });
    const again = await as(singlemocRoute, "/api/singlemoc", cast.originator, { query: { moc_id: doc._id } });
    expect(again.body.originator_form.vessel.value.name).toBe("MV Renamed");
    // A vessel named by a MOC is not deleted (deactivate it instead).
    expectError(await vesselsApi(admin, { method: "DELETE", query: { id: vessel._id } }), 409);
  });

  it("refuses a bad title or scope with 400 on its path, creating nothing", async () => {
    const cast = await makeCast();
    const inactive = (
      await vesselsApi(admin, { method: "POST", body: { name: "MV Laid Up", imo: "9074729", active: false } })
    ).body.data;
    const [before] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    for (const [overrides, path] of [
      [{ title: { value: "ab" } }, "title"],
      [{ title: { value: "x".repeat(121) } }, "title"],
      [{ title: { value: "Two\nlines" } }, "title"],
      [{ title: { value: 42 } }, "title"],
      [{ vessel: { value: "ship" } }, "vessel"],
      [{ vessel: { value: { _id: "not-a-uuid" } } }, "vessel"],
      [{ vessel: { value: { _id: "00000000-0000-4000-8000-000000000000" } } }, "vessel"],
      [{ vessel: { value: { _id: inactive._id } } }, "vessel"],
    ] as const) {
      const res = await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, overrides),
      });
      expectError(res, 400);
      expect(
        issuePaths(res).some((p: string) => p === path || p.startsWith(`${path}.`)),
        res.text,
      ).toBe(true);
    }
    const [after] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    expect(after!.n).toBe(before!.n);
  });

  it("is required on the page form to submit a new MOC (a draft may leave them out)", () => {
    const page = {
      intent: "submit",
      "implementer-name": { value: { _id: "00000000-0000-4000-8000-000000000000" } },
      "description-of-change": { value: "<p>Change</p>" },
      "reason-for-change": { value: "Because" },
      "department-of-change": { value: "engineering" },
    };
    const missing = partAPageSchema.safeParse(page);
    expect(missing.success).toBe(false);
    const paths = missing.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["title", "vessel"]));
    const complete = partAPageSchema.safeParse({ ...page, title: { value: "A title" }, vessel: { value: "office" } });
    expect(complete.success, JSON.stringify(complete.error?.issues)).toBe(true);
    // The page's select posts a vessel's id as a string.
    const byId = partAPageSchema.safeParse({
      ...page,
      title: { value: "A title" },
      vessel: { value: "00000000-0000-4000-8000-000000000000" },
    });
    expect(byId.data?.vessel).toEqual({ value: { _id: "00000000-0000-4000-8000-000000000000" } });
    expect(partAPageSchema.safeParse({ ...page, intent: "draft" }).success).toBe(true);
  });
});

describe("Part A for the ship (issue 38 item 9)", () => {
  it("takes the hazards seen and the date the change is needed (optional over /api); a past date is a 400", async () => {
    const cast = await makeCast();
    const res = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer, {
        "hazards-seen": { value: "Loss of the HT alarm while the sensor is out\nHot surface near the bypass" },
        "target-date": { value: daysFromToday(10) },
      }),
    });
    expect(res.status, res.text).toBe(200);
    const form = res.body.data.originator_form;
    expect(form["hazards-seen"]).toEqual({
      value: "Loss of the HT alarm while the sensor is out\nHot surface near the bypass",
    });
    expect(form["target-date"]).toEqual({ value: daysFromToday(10) });
    // The record (and so the print and PDF) shows them in Part A.
    const partA = describeMocParts(res.body.data).parts.find((p) => p.id === "part-a")!;
    const rows = partA.fields.map((f) => [f.label, f.text]);
    expect(rows).toContainEqual(["Target date (proposed)", daysFromToday(10)]);
    expect(rows.find(([label]) => label === "Hazards seen")?.[1]).toMatch(/Loss of the HT alarm/);
    // Without them, as before.
    const plain = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer),
    });
    expect(plain.body.data.originator_form["hazards-seen"]).toBeUndefined();
    const [before] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    const past = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer, { "target-date": { value: daysFromToday(-1) } }),
    });
    expectError(past, 400);
    expect(issuePaths(past)).toContain("target-date");
    const long = await as(newmocRoute, "/api/newmoc", cast.originator, {
      method: "POST",
      body: newMocBody(cast.implementer, { "hazards-seen": { value: "x".repeat(20_001) } }),
    });
    expectError(long, 400);
    const [after] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    expect(after!.n).toBe(before!.n);
  });

  it("presets the vessel a person is assigned to today, and goes on to the files page when asked", async () => {
    const vessel = (await vesselsApi(admin, { method: "POST", body: { name: "MV Preset", imo: "9234563" } })).body.data;
    const sailor = await makeUser({ name: "Sia Sailor", department: "engineering" });
    const load = async (who: { _id: string }) =>
      (await newMocPage.loader({
        request: await buildRequest({ path: "/mocs/new", token: await tokenOf(who), cookie: true }),
        params: {},
        context: {},
      } as never)) as { defaultValue?: { vessel?: { value: string } } };
    expect((await load(sailor)).defaultValue).toBeUndefined();
    expect(
      (
        await crewApi(admin, {
          method: "POST",
          body: { vessel_id: vessel._id, user_id: sailor._id, from: daysFromToday(-3) },
        })
      ).status,
    ).toBe(200);
    expect((await load(sailor)).defaultValue).toEqual({ vessel: { value: vessel._id } });

    const form = new URLSearchParams({
      intent: "draft",
      "title.value": "Temporary hose on the fuel transfer line",
      "vessel.value": vessel._id,
      "hazards-seen.value": "Spill on deck",
      "attach-files": "on",
    });
    const response = (await newMocPage.action({
      request: await buildRequest({
        method: "POST",
        path: "/mocs/new",
        token: await tokenOf(sailor),
        cookie: true,
        body: form.toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      params: {},
      context: {},
    } as never)) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^\/mocs\/[0-9a-f-]{36}\/attachments$/);
  });
});

describe("crew assignments and crew read access", () => {
  it("lets a person read a vessel's MOCs only while assigned to it: before, during, after", async () => {
    const cast = await makeCast();
    const vessel = (
      await vesselsApi(admin, {
        method: "POST",
        body: { name: "MV Crew Test", imo: "9412345".slice(0, 6) + digitFor("941234") },
      })
    ).body.data;
    const other = (
      await vesselsApi(admin, {
        method: "POST",
        body: { name: "MV Elsewhere", imo: "9512345".slice(0, 6) + digitFor("951234") },
      })
    ).body.data;
    const moc = (
      await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, { title: { value: "Crew test" }, vessel: { value: { _id: vessel._id } } }),
      })
    ).body.data;
    const officeMoc = (
      await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, { title: { value: "Office test" }, vessel: { value: "office" } }),
      })
    ).body.data;
    const before = await makeUser({ name: "Ben Before", department: "fleet" });
    const during = await makeUser({ name: "Dora During", department: "fleet" });
    const openEnded = await makeUser({ name: "Otto Open", department: "fleet" });
    const after = await makeUser({ name: "Alf After", department: "fleet" });
    const elsewhere = await makeUser({ name: "Eve Elsewhere", department: "fleet" });
    const assign = async (user: PublicUser, vesselId: string, from: string, to: string | null) => {
      const res = await crewApi(admin, { method: "POST", body: { vessel_id: vesselId, user_id: user._id, from, to } });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    expect((await assign(before, vessel._id, daysFromToday(1), daysFromToday(60))).current).toBe(false);
    expect((await assign(during, vessel._id, daysFromToday(-10), daysFromToday(10))).current).toBe(true);
    expect((await assign(openEnded, vessel._id, daysFromToday(0), null)).current).toBe(true);
    expect((await assign(after, vessel._id, daysFromToday(-60), daysFromToday(-1))).current).toBe(false);
    await assign(elsewhere, other._id, daysFromToday(-10), daysFromToday(10));

    const read = async (user: PublicUser, id = moc._id) =>
      (await as(singlemocRoute, "/api/singlemoc", user, { query: { moc_id: id } })).status;
    expect(await read(before)).toBe(403);
    expect(await read(during)).toBe(200);
    expect(await read(openEnded)).toBe(200);
    expect(await read(after)).toBe(403);
    expect(await read(elsewhere)).toBe(403);
    expect(await read(during, officeMoc._id)).toBe(403);

    // The predicate and its SQL twin agree, person by person.
    const access = (await loadMocAccess(moc._id, getDb()))!;
    for (const [user, expected] of [
      [before, false],
      [during, true],
      [openEnded, true],
      [after, false],
      [elsewhere, false],
    ] as const) {
      expect(isCrewOf(user, access), user.name).toBe(expected);
      expect(canReadMoc(user, access), user.name).toBe(expected);
      // Read only: crew access adds nothing to what canViewMoc allows (chat, clone, steps).
      expect(canViewMoc(user, access), user.name).toBe(false);
      const [row] = await getDb().execute<{ n: number }>(
        sql`select count(*)::int as n from mocs m where m.id = ${moc._id} and ${mocListScope.visible(user)}`,
      );
      expect(row!.n === 1, user.name).toBe(expected);
    }
  });

  it("validates assignments (400 with paths, 409 on an overlap, 403 for non-admins) and reads them back", async () => {
    const vessel = (
      await vesselsApi(admin, { method: "POST", body: { name: "MV Rotation", imo: "963123" + digitFor("963123") } })
    ).body.data;
    const person = await makeUser({ name: "Rita Rotation", department: "fleet" });
    const before = await counts();
    for (const [body, paths] of [
      [{ vessel_id: vessel._id, user_id: person._id, from: "2026-02-30" }, ["from"]],
      [{ vessel_id: vessel._id, user_id: person._id, from: "2026-03-10", to: "2026-03-01" }, ["to"]],
      [{ vessel_id: "x", user_id: person._id, from: "2026-03-01" }, ["vessel_id"]],
      [{ vessel_id: vessel._id, user_id: "00000000-0000-4000-8000-000000000000", from: "2026-03-01" }, ["user_id"]],
    ] as const) {
      const res = await crewApi(admin, { method: "POST", body });
      expectError(res, 400);
      expect(issuePaths(res)).toEqual(paths);
    }
    expectError(
      await crewApi(person, {
        method: "POST",
        body: { vessel_id: vessel._id, user_id: person._id, from: "2026-03-01" },
      }),
      403,
    );
    expect(await counts()).toEqual(before);
    const first = await crewApi(admin, {
      method: "POST",
      body: { vessel_id: vessel._id, user_id: person._id, from: "2026-03-01", to: "2026-05-31" },
    });
    expect(first.status, first.text).toBe(200);
    const second = await crewApi(admin, {
      method: "POST",
      body: { vessel_id: vessel._id, user_id: person._id, from: "2026-08-01", to: "2026-10-31" },
    });
    expect(second.status, second.text).toBe(200);
    expectError(
      await crewApi(admin, {
        method: "POST",
        body: { vessel_id: vessel._id, user_id: person._id, from: "2026-05-01" },
      }),
      409,
    );
    const own = await crewApi(person, { query: { user_id: person._id } });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.map((a: { from: string }) => a.from)).toEqual(["2026-08-01", "2026-03-01"]);
    expectError(await crewApi(person, { query: { vessel_id: vessel._id } }), 403);
    const ofVessel = await crewApi(admin, { query: { vessel_id: vessel._id } });
    expect(ofVessel.body.data).toHaveLength(2);
    const removed = await crewApi(admin, { method: "DELETE", query: { id: first.body.data._id } });
    expect(removed.status, removed.text).toBe(200);
    expectError(await crewApi(admin, { method: "DELETE", query: { id: first.body.data._id } }), 404);
    expect((await crewApi(admin, { query: { vessel_id: vessel._id } })).body.data).toHaveLength(1);
  });
});

describe("MOCs raised without a title or scope", () => {
  it("their originator records what is missing (in the trail); what is recorded changes through Part A", async () => {
    const cast = await makeCast();
    const vessel = (
      await vesselsApi(admin, { method: "POST", body: { name: "MV Context", imo: "934567" + digitFor("934567") } })
    ).body.data;
    const old = (
      await as(newmocRoute, "/api/newmoc", cast.originator, { method: "POST", body: newMocBody(cast.implementer) })
    ).body.data;
    const record = (who: { _id: string }, body: unknown) =>
      as(contextRoute, "/api/titleAndVessel", who, { method: "POST", body });
    expectError(await record(cast.implementer, { moc_id: old._id, title: { value: "Not mine" } }), 403);
    expectError(await record(cast.originator, { moc_id: old._id }), 400);
    expectError(await record(cast.originator, { moc_id: old._id, title: { value: "x" } }), 400);
    expectError(
      await record(cast.originator, { moc_id: "00000000-0000-4000-8000-000000000000", title: { value: "Nope" } }),
      404,
    );
    const titled = await record(cast.originator, { moc_id: old._id, title: { value: "Ballast pump controller" } });
    expect(titled.status, titled.text).toBe(200);
    expect(titled.body.data.originator_form.title).toEqual({ value: "Ballast pump controller" });
    expect(titled.body.data.originator_form.vessel).toBeUndefined();
    expectError(await record(cast.originator, { moc_id: old._id, title: { value: "Another title" } }), 409);
    const scoped = await record(admin, { moc_id: old._id, vessel: { value: { _id: vessel._id } } });
    expect(scoped.status, scoped.text).toBe(200);
    expect(scoped.body.data.originator_form).toMatchObject({
      title: { value: "Ballast pump controller" },
      vessel: { value: { _id: vessel._id, name: "MV Context" } },
    });
    const actions = scoped.body.data.logs.map((l: { action: string }) => l.action);
    expect(actions).toEqual(
      expect.arrayContaining(["Recorded the title “Ballast pump controller”", "Recorded the vessel MV Context"]),
    );
  });
});

describe("titles and vessels where MOCs are named", () => {
  it("email subjects, the list's vessel filter and the vessel page name the MOC with its title", async () => {
    const cast = await makeCast();
    const vessel = (
      await vesselsApi(admin, { method: "POST", body: { name: "MV Listed", imo: "945678" + digitFor("945678") } })
    ).body.data;
    const moc = (
      await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, {
          title: { value: "Bypass of ME1 LO alarm" },
          vessel: { value: { _id: vessel._id } },
        }),
      })
    ).body.data;
    const untitled = (
      await as(newmocRoute, "/api/newmoc", cast.originator, { method: "POST", body: newMocBody(cast.implementer) })
    ).body.data;
    const [mail] = await getDb().execute<{ subject: string }>(
      sql`select subject from email_messages where record_id = ${moc._id} order by created_at limit 1`,
    );
    // The subject names the MOC by its title and, where recorded, the vessel it concerns (decision 036).
    expect(mail!.subject).toContain(`[MOC ${moc.serial_num} — Bypass of ME1 LO alarm · MV Listed]`);
    const byVessel = await searchMocs(admin, { vessel: vessel._id });
    expect(byVessel.rows.map((r) => r.id)).toEqual([moc._id]);
    expect(byVessel.rows[0]).toMatchObject({ title: "Bypass of ME1 LO alarm", vessel: "MV Listed" });
    const notRecorded = await searchMocs(admin, { vessel: "none", pageSize: 100 });
    expect(notRecorded.rows.map((r) => r.id)).toContain(untitled._id);
    expect(notRecorded.rows.map((r) => r.id)).not.toContain(moc._id);
    expect((await searchMocs(admin, { q: "ME1 LO alarm" })).rows.map((r) => r.id)).toEqual([moc._id]);
    const page = await vesselOverview(admin, vessel._id);
    expect(page.open.rows.map((r) => r.id)).toEqual([moc._id]);
    // Someone not involved and not on board sees the vessel but none of its MOCs.
    expect((await vesselOverview(someone, vessel._id)).open.total).toBe(0);
    await expect(vesselOverview(admin, "not-an-id")).rejects.toMatchObject({ status: 404 });
  });

  it("Insight counts by vessel and filters by one", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const period = { from: `${today.slice(0, 4)}-01-01`, to: today, department: null };
    const vessel = (
      await vesselsApi(admin, { method: "POST", body: { name: "MV Insight", imo: "956789" + digitFor("956789") } })
    ).body.data;
    const cast = await makeCast();
    for (const scope of [{ _id: vessel._id }, { _id: vessel._id }, "office"]) {
      const res = await as(newmocRoute, "/api/newmoc", cast.originator, {
        method: "POST",
        body: newMocBody(cast.implementer, { title: { value: "Counted" }, vessel: { value: scope } }),
      });
      expect(res.status, res.text).toBe(200);
    }
    const all = await computeInsights(period);
    expect(all.vesselOrOffice).toBe("recorded");
    const row = all.vessels!.find((v) => v.vessel === "MV Insight");
    expect(row).toEqual({ vessel: "MV Insight", opened: 2, completed: 0, open: 2, overdue: 0, overdueActions: 0 });
    expect(all.vessels!.map((v) => v.vessel)).toEqual(expect.arrayContaining(["Office / shore", "Not recorded"]));
    expect(all.vessels!.at(-1)!.vessel).toBe("Not recorded");
    const one = await computeInsights({ ...period, vessel: vessel._id });
    expect(one.vessel).toBe("MV Insight");
    expect(one.totals.opened).toBe(2);
    expect(one.vessels).toEqual([
      { vessel: "MV Insight", opened: 2, completed: 0, open: 2, overdue: 0, overdueActions: 0 },
    ]);
    expect(insightTables(one).vessels.rows).toEqual([["MV Insight", 2, 0, 2, 0, 0]]);
    const none = await computeInsights({ ...period, vessel: "none", department: "engineering" });
    expect(none.vessels!.every((v) => v.vessel === "Not recorded")).toBe(true);
  });
});

/** The check digit of six digits (so a test can make a valid IMO number). */
function digitFor(six: string): string {
  return String([...six].reduce((n, d, i) => n + Number(d) * (7 - i), 0) % 10);
}
