/**
 * Search (docs/decisions/039-search.md): GET /api/search and the /search page over MOCs, PCRs and
 * archive records. A serial in each usual form, people's names (renamed too), words with their
 * highlighted excerpt, what each reader may read (the lists' own SQL twins in authz.server.ts),
 * bad input as 400s, and one statement per search whatever it finds.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as searchApi from "~/routes/api+/search";
import * as searchPage from "~/routes/search";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as oldMocRoute from "~/routes/api+/oldMoc";
import * as oldPcrRoute from "~/routes/api+/oldPcr";
import * as vesselsRoute from "~/routes/api+/vessels";
import { parseSearchQuery, search, toPrefixQuery, type SearchHit } from "~/models/records/search.server";
import { updateUser, type PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { stepBody, type Cast } from "../helpers/moc";
import { createMocOk, makeCast, mocAt, stepOk, tokenOf, type Doc } from "../helpers/moc-flow";
import { createPcrOk } from "../helpers/pcr";
import { buildRequest, call } from "../helpers/request";

let admin: PublicUser;
let stranger: PublicUser;
let cast: Cast;
let open: Doc;
let completed: Doc;
let pcr: Doc;
let legacyMocId: string;
let legacyPcrId: string;
let party: PublicUser;

async function castNamed(originatorName: string, implementerName: string): Promise<Cast> {
  const [originator, implementer, approver, hseq, verifier] = await Promise.all([
    makeUser({ name: originatorName, department: "engineering" }),
    makeUser({ name: implementerName, department: "operations" }),
    makeUser({ name: "Alma Approver", department: "fleet" }),
    makeUser({ name: "Hugo Hseq", department: "hseq" }),
    makeUser({ name: "Vera Verifier", department: "engineering" }),
  ]);
  return { originator: originator!, implementer: implementer!, approver: approver!, hseq: hseq!, verifier: verifier! };
}

const find = async (who: PublicUser, q: string) => {
  const res = await call(searchApi, { path: "/api/search", query: { q }, token: await tokenOf(who) });
  expect(res.status, res.text).toBe(200);
  return res.body.data as {
    q: string;
    mocs: { total: number; ranked: boolean; results: SearchHit[] };
    pcrs: { total: number; ranked: boolean; results: SearchHit[] };
    archive: { total: number; ranked: boolean; results: SearchHit[] };
  };
};
const ids = (hits: SearchHit[]) => hits.map((h) => h._id);
const count = (serial: string) => serial.split("-") as [string, string];

beforeAll(async () => {
  admin = await makeAdmin({ name: "Ada Admin" });
  stranger = await makeUser({ name: "Stan Stranger", department: "operations" });
  party = await makeUser({ name: "Petra Quist", department: "fleet" });
  cast = await castNamed("Marta Kowalczyk", "Henrik Olsen");
  open = await createMocOk(cast, {
    "description-of-change": { value: "<p>Replace the <strong>ballast pump</strong> controller &amp; its wiring</p>" },
  });
  completed = await mocAt("completed", await castNamed("Greta Nowak", "Lars Berg"));
  pcr = await createPcrOk(await makeUser({ name: "Oskar Lindqvist", department: "fleet" }), {
    parties: [party],
    form: { "suggestion-details": "<p>Inspect the <em>mooring winch</em> brakes every watch</p>" },
  });
  const adminToken = await tokenOf(admin);
  const legacyMoc = await call(oldMocRoute, {
    method: "POST",
    path: "/api/oldMoc",
    token: adminToken,
    body: {
      serial_num: "MOC-0042/2013",
      title: "Bilge alarm relocation",
      description: "Moved the bilge alarm panel to the bridge",
      department: "Engineering",
      originator_name: "Jan de Vries",
      date_raised: "2013-03-02",
    },
  });
  expect(legacyMoc.status, legacyMoc.text).toBe(200);
  legacyMocId = legacyMoc.body.data._id;
  const legacyPcr = await call(oldPcrRoute, {
    method: "POST",
    path: "/api/oldPcr",
    token: adminToken,
    body: {
      serial_num: "7-2012",
      title: "Gangway watch procedure",
      procedure: "Deck manual chapter 2",
      originator_name: "Ines Moreau",
      date_raised: "2012-05-01",
    },
  });
  expect(legacyPcr.status, legacyPcr.text).toBe(200);
  legacyPcrId = legacyPcr.body.data._id;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a serial in each usual form", () => {
  it("finds the MOC first, marked exact, whichever way it is written", async () => {
    const [n, y] = count(open.serial_num);
    for (const q of [
      `${n}-${y}`,
      `MOC ${n}-${y}`,
      `${n}/${y}`,
      `MOC-${n}-${y}`,
      `moc ${n.padStart(3, "0")}/${y}`,
      `MOC${n}-${y}`,
    ]) {
      const found = await find(admin, q);
      expect(found.mocs.results[0]?._id, q).toBe(open._id);
      expect(found.mocs.results[0]?.exactSerial, q).toBe(true);
      expect(found.mocs.results[0]?.link, q).toBe(`/mocs/${open._id}`);
    }
  });

  it("keeps a leading MOC or PCR to that kind; a bare serial matches every kind with it", async () => {
    const [n, y] = count(pcr.serial_num);
    const asPcr = await find(admin, `PCR ${n}-${y}`);
    expect(ids(asPcr.pcrs.results)).toEqual([pcr._id]);
    expect(asPcr.mocs.results.filter((h) => h.exactSerial)).toEqual([]);
    const bare = await find(admin, `${n}/${y}`);
    expect(ids(bare.pcrs.results)).toContain(pcr._id);
    expect(bare.pcrs.results[0]).toMatchObject({ _id: pcr._id, exactSerial: true, link: `/pcrs/${pcr._id}` });
  });

  it("reads a paper record's serial the same way (prefix, slash and leading zeros)", async () => {
    for (const q of ["42/2013", "MOC 42-2013", "MOC-0042/2013"]) {
      const found = await find(stranger, q);
      expect(found.archive.results[0], q).toMatchObject({ _id: legacyMocId, kind: "legacy_moc", exactSerial: true });
      expect(found.archive.results[0]?.link).toBe(`/archive/mocs/${legacyMocId}`);
    }
    expect((await find(stranger, "PCR 7/2012")).archive.results[0]).toMatchObject({
      _id: legacyPcrId,
      kind: "legacy_pcr",
    });
  });

  it("a serial nobody has finds nothing", async () => {
    const found = await find(admin, "MOC 99999-1999");
    expect([found.mocs.total, found.pcrs.total, found.archive.total]).toEqual([0, 0, 0]);
  });
});

describe("people's names", () => {
  it("finds MOCs by the originator's or implementer's name, whole or begun", async () => {
    for (const q of ["Kowalczyk", "marta kowal", "Henrik Olsen"]) {
      const found = await find(admin, q);
      expect(ids(found.mocs.results), q).toContain(open._id);
      expect(ids(found.mocs.results), q).not.toContain(completed._id);
    }
    expect((await find(admin, "Kowalczyk")).mocs.total).toBe(1);
    expect(ids((await find(admin, "Greta Nowak")).mocs.results)).toEqual([completed._id]);
  });

  it("finds PCRs by originator and affected party, and paper records by originator", async () => {
    expect(ids((await find(admin, "Lindqvist")).pcrs.results)).toEqual([pcr._id]);
    expect(ids((await find(admin, "Petra Quist")).pcrs.results)).toEqual([pcr._id]);
    expect(ids((await find(admin, "Jan de Vries")).archive.results)).toEqual([legacyMocId]);
  });

  it("follows a renamed person: their MOCs and PCRs are found under the new name, not the old", async () => {
    await updateUser(admin, { _id: party._id, name: "Petra Vangsnes" });
    expect(ids((await find(admin, "Vangsnes")).pcrs.results)).toEqual([pcr._id]);
    expect((await find(admin, "Quist")).pcrs.total).toBe(0);
    const implementer = cast.implementer;
    await updateUser(admin, { _id: implementer._id, name: "Henrik Solberg" });
    expect(ids((await find(admin, "Solberg")).mocs.results)).toEqual([open._id]);
    expect((await find(admin, "Olsen")).mocs.total).toBe(0);
  });
});

describe("entries kept by the stored documents", () => {
  it("a workflow step leaves a MOC's entry as it was, unwritten; a change to what finds it rewrites it", async () => {
    const people = await castNamed("Nils Nieminen", "Olga Ostrowska");
    const moc = await mocAt("c", people);
    const entry = async () => {
      const [row] = await getDb().execute<{ version: string; title: string; excerpt: string; search: string }>(
        sql`select xmin::text as version, title, excerpt_text as excerpt, search::text as search
          from search_entries where kind = 'moc' and record_id = ${moc._id}`,
      );
      return row!;
    };
    const before = await entry();
    expect(before.search).toContain("nieminen");
    // The step changes the stored document (status, Part C, trail), not what the entry is made of.
    const after = await stepOk("hseq", people.hseq, stepBody("hseq", moc, people));
    expect(after.status).toBe("d");
    expect(await entry()).toEqual(before);
    // A renamed person named by the MOC: the entry is written again, with the new name.
    await updateUser(admin, { _id: people.originator._id, name: "Nils Aaltonen" });
    const renamed = await entry();
    expect(renamed.version).not.toBe(before.version);
    expect(renamed.search).toContain("aaltonen");
    expect(renamed.search).not.toContain("nieminen");
    expect(ids((await find(admin, "Aaltonen")).mocs.results)).toEqual([moc._id]);
  });
});

describe("words, ranked, with a highlighted excerpt", () => {
  it("finds the description's words (stemmed, prefixes too) and marks them in a plain-text excerpt", async () => {
    const found = await find(admin, "ballast pumps");
    const hit = found.mocs.results.find((h) => h._id === open._id)!;
    expect(hit).toBeDefined();
    const text = hit.excerpt.map((p) => p.text).join("");
    expect(text).toContain("ballast pump");
    expect(text).toContain("controller & its wiring");
    expect(text).not.toMatch(/<|&amp;/);
    expect(hit.excerpt.filter((p) => p.match).map((p) => p.text.toLowerCase())).toEqual(["ballast", "pump"]);
    expect(ids((await find(admin, "ballas contr")).mocs.results)).toContain(open._id);
  });

  it("ranks a title match above a mere mention, and searches PCR text and paper titles", async () => {
    expect(ids((await find(admin, "mooring winch")).pcrs.results)).toEqual([pcr._id]);
    const bilge = await find(admin, "bilge alarm");
    expect(bilge.archive.results[0]?._id).toBe(legacyMocId);
    expect(bilge.archive.results[0]?.title).toBe("Bilge alarm relocation");
  });

  it("finds a MOC by its title and by the name of the vessel Part A names, renamed too (decision 036)", async () => {
    const cast = await makeCast();
    const token = await tokenOf(admin);
    const created = await call(vesselsRoute, {
      path: "/api/vessels",
      method: "POST",
      token,
      body: { name: "MV Skerryvore", imo: "9074729" },
    });
    expect(created.status, created.text).toBe(200);
    const vessel = created.body.data;
    const moc = await createMocOk(cast, {
      title: { value: "Fuel oil purifier bypass" },
      vessel: { value: { _id: vessel._id } },
    });
    expect(ids((await find(admin, "purifier bypass")).mocs.results)).toContain(moc._id);
    expect(ids((await find(admin, "Skerryvore")).mocs.results)).toEqual([moc._id]);
    const renamed = await call(vesselsRoute, {
      path: "/api/vessels",
      method: "PUT",
      token,
      query: { id: vessel._id },
      body: { name: "MV Hyskeir" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(ids((await find(admin, "Hyskeir")).mocs.results)).toEqual([moc._id]);
    expect((await find(admin, "Skerryvore")).mocs.total).toBe(0);
  });

  it("ranks a group of up to SEARCH_RANK_LIMIT matches; past it, shows the newest and says so", async () => {
    // Made one after another: the oldest says it most, so relevance and recency disagree.
    const made: Doc[] = [];
    for (const text of ["keel cooler, keel cooler: the keel cooler again", "keel cooler once", "a keel cooler"]) {
      made.push(await createMocOk(cast, { "description-of-change": { value: `<p>${text}</p>` } }));
    }
    const [oldest, middle, newest] = made.map((d) => d._id) as [string, string, string];
    const ranked = await find(admin, "keel cooler");
    expect(ranked.mocs.total).toBe(3);
    expect(ranked.mocs.ranked).toBe(true);
    expect(ids(ranked.mocs.results)[0]).toBe(oldest);
    expect(ranked.pcrs.ranked).toBe(true);

    const past = await search(admin, "keel cooler", { rankLimit: 2 });
    expect(past.mocs.total).toBe(3);
    expect(past.mocs.ranked).toBe(false);
    expect(ids(past.mocs.results)).toEqual([newest, middle, oldest]);
    expect(past.mocs.results[0]!.excerpt.some((p) => p.match && /keel/i.test(p.text))).toBe(true);
    // At the limit, still ranked; another reader's scope is counted before the limit applies.
    expect((await search(admin, "keel cooler", { rankLimit: 3 })).mocs.ranked).toBe(true);
    expect((await search(stranger, "keel cooler", { rankLimit: 0 })).mocs).toEqual({
      total: 0,
      ranked: true,
      results: [],
    });
  });

  it("a serial matched exactly stays first when the group is past the limit", async () => {
    const [n, y] = count(open.serial_num);
    const found = await search(admin, `${n}-${y}`, { rankLimit: 0 });
    expect(found.mocs.ranked).toBe(false);
    expect(found.mocs.results[0]?._id).toBe(open._id);
    expect(found.mocs.results[0]?.exactSerial).toBe(true);
  });

  it("takes operators and punctuation as plain characters", async () => {
    for (const q of ["pump & | ! ( ) :* <->", "'; drop table mocs; --", "!!!", "the"]) {
      const res = await call(searchApi, { path: "/api/search", query: { q }, token: await tokenOf(admin) });
      expect(res.status, `${q}: ${res.text}`).toBe(200);
    }
    const [{ n }] = (await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`)) as unknown as [
      { n: number },
    ];
    expect(n).toBeGreaterThan(0);
  });
});

describe("what each reader may read", () => {
  it("an uninvolved standard user finds completed MOCs but not open ones, nor PCRs not theirs; archive records always", async () => {
    expect((await find(stranger, "Kowalczyk")).mocs.total).toBe(0);
    expect(ids((await find(stranger, "Nowak")).mocs.results)).toEqual([completed._id]);
    const [n, y] = count(open.serial_num);
    expect(ids((await find(stranger, `MOC ${n}-${y}`)).mocs.results)).not.toContain(open._id);
    expect((await find(stranger, "mooring winch")).pcrs.total).toBe(0);
    expect(ids((await find(stranger, "bilge")).archive.results)).toEqual([legacyMocId]);
  });

  it("the people of a MOC and a PCR find them; admins find everything", async () => {
    expect(ids((await find(cast.originator, "ballast")).mocs.results)).toContain(open._id);
    expect(ids((await find(party, "mooring")).pcrs.results)).toEqual([pcr._id]);
    expect(ids((await find(admin, "ballast")).mocs.results)).toContain(open._id);
  });

  it("a deleted MOC is found by nobody, admins included (the Deleted list is theirs)", async () => {
    const doomed = await createMocOk(await castNamed("Dora Doomed", "Ivo Doomed"), {
      "description-of-change": { value: "<p>Temporary sounding pipe plug</p>" },
    });
    expect(ids((await find(admin, "sounding pipe")).mocs.results)).toEqual([doomed._id]);
    const res = await call(deleteMocRoute, {
      method: "DELETE",
      path: "/api/deleteMoC",
      query: { id: doomed._id },
      token: await tokenOf(admin),
    });
    expect(res.status, res.text).toBe(200);
    expect((await find(admin, "sounding pipe")).mocs.total).toBe(0);
  });

  it("a paper record deleted is gone from search", async () => {
    const token = await tokenOf(admin);
    const made = await call(oldPcrRoute, {
      method: "POST",
      path: "/api/oldPcr",
      token,
      body: {
        serial_num: "9-2011",
        title: "Lifeboat davit greasing",
        originator_name: "Ole Berg",
        date_raised: "2011-01-01",
      },
    });
    expect(made.status, made.text).toBe(200);
    expect((await find(admin, "davit")).archive.total).toBe(1);
    await getDb().execute(sql`delete from legacy_pcrs where id = ${made.body.data._id}`);
    expect((await find(admin, "davit")).archive.total).toBe(0);
  });
});

describe("bad input", () => {
  it("answers 400 with a message for a missing, empty or too long q; 401 without a session", async () => {
    const token = await tokenOf(admin);
    for (const query of [{}, { q: "" }, { q: "   " }, { q: "x".repeat(201) }] as Record<string, string>[]) {
      const res = await call(searchApi, { path: "/api/search", query, token });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toBeTruthy();
      expect(JSON.stringify(res.body)).toMatch(/q/);
    }
    expect((await call(searchApi, { path: "/api/search", query: { q: "pump" } })).status).toBe(401);
  });
});

describe("the /search page", () => {
  const page = async (who: PublicUser, q?: string) => {
    const request = await buildRequest({
      path: "/search",
      query: q === undefined ? {} : { q },
      token: await tokenOf(who),
      cookie: true,
    });
    return searchPage.loader({ request, params: {}, context: {} });
  };

  it("answers what the API answers, grouped by kind", async () => {
    const [n, y] = count(open.serial_num);
    const shown = (await page(admin, `MOC ${n}/${y}`)) as { results: Awaited<ReturnType<typeof find>> };
    expect(shown.results?.mocs.results[0]?._id).toBe(open._id);
    expect(shown.results).toEqual(await find(admin, `MOC ${n}/${y}`));
  });

  it("shows the empty form without q, and the form with the message for a q too long, as a 400 (never a 5xx)", async () => {
    expect(await page(admin)).toEqual({ q: "", error: null, results: null });
    const long = (await page(admin, "y".repeat(500))) as unknown as {
      data: { results: unknown; error: string };
      init: { status: number };
    };
    expect(long.init.status).toBe(400);
    expect(long.data.results).toBeNull();
    expect(long.data.error).toMatch(/at most 200/);
  });

  it("sends a reader without a session to sign in", async () => {
    const request = await buildRequest({ path: "/search", query: { q: "pump" } });
    const thrown = await searchPage.loader({ request, params: {}, context: {} }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("Location")).toMatch(/^\/login/);
  });
});

describe("queries", () => {
  it("one statement per search, whether it finds nothing or many", async () => {
    const many = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        createMocOk(cast, { "description-of-change": { value: `<p>Hull coating batch ${i}</p>` } }),
      ),
    );
    const db = getDb();
    const spy = vi.spyOn(db, "execute");
    const found = await search(admin, "hull coating");
    expect(ids(found.mocs.results).sort()).toEqual(ids(many as SearchHit[]).sort());
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockClear();
    await search(admin, "nothing-matches-zzqx");
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("reads a serial-only query as a serial, anything else as prefix words", () => {
    expect(parseSearchQuery("MOC 14-2026")).toEqual({ words: "", serialKinds: ["moc", "legacy_moc"] });
    expect(parseSearchQuery("14/2026").serialKinds).toHaveLength(4);
    expect(parseSearchQuery("pump 14").words).toBe("'pump':* & '14':*");
    expect(toPrefixQuery("it's & (x) :*")).toBe("'it':* & 's':* & 'x':*");
  });
});
