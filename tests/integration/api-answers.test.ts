/**
 * Answers of the API the document promises (docs/decisions/031-api-contract.md): a PCR signature's `signatureDate` is the
 * day (YYYY-MM-DD), every 400 lists `issues`, every list answers CSV when asked, and the lists
 * page by keyset (`limit`, `cursor`, `Link: <...>; rel="next"`) without losing or repeating a row
 * while MOCs are created during the walk, and still answer everything by default.
 */
import { describe, expect, it } from "vitest";
import * as allPcrRoute from "~/routes/api+/allPcr";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as getAllPcrRoute from "~/routes/api+/getAllPcr";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as pcrRoute from "~/routes/api+/pcr";
import * as summaryRoute from "~/routes/api+/pcr.summary";
import * as oldMocRoute from "~/routes/api+/oldMoc";
import * as oldPcrRoute from "~/routes/api+/oldPcr";
import * as reviewRoute from "~/routes/api+/year-end-review";
import * as usersRoute from "~/routes/api+/users";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { createMocOk, makeCast, tokenOf } from "../helpers/moc-flow";
import { createPcrOk, emptyChain, makeHolders, pcrBody, signOk } from "../helpers/pcr";
import { call, type CallResult } from "../helpers/request";

type RouteModule = Parameters<typeof api>[0];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

describe("PCR signatureDate", () => {
  it("is the day of the signature (YYYY-MM-DD) in documents and the summary; signedAt keeps the time", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const signed = await signOk(originator, pcr._id, "Change Originator");
    const slot = signed.signatures[0];
    expect(slot.signatureDate).toMatch(DAY);
    expect(slot.signedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(slot.signedAt.slice(0, 10)).toBe(slot.signatureDate);
    expect(signed.signatures[1].signatureDate).toBeNull();
    const summary = await api(summaryRoute, { path: "/api/pcr/summary", token: await tokenOf(originator) });
    const mine = summary.body.data.find((p: { _id: string }) => p._id === pcr._id);
    expect(mine.signatures[0].signatureDate).toBe(slot.signatureDate);
  });
});

describe("every 400 lists its issues", () => {
  it.each([
    ["a pre-signed slot", (chain: ReturnType<typeof emptyChain>) => ((chain[0]!.Signature as unknown) = "Some One")],
    ["a null slot (a comment)", (chain: ReturnType<typeof emptyChain>) => ((chain[1]!.Signature as unknown) = null)],
    ["slots out of order", (chain: ReturnType<typeof emptyChain>) => chain.reverse()],
  ])("POST /api/pcr with %s", async (_what, spoil) => {
    const originator = await makeUser();
    const chain = emptyChain();
    spoil(chain);
    const res = await api(pcrRoute, {
      method: "POST",
      path: "/api/pcr",
      token: await tokenOf(originator),
      body: pcrBody({ signatures: chain }),
    });
    expect(res.status).toBe(400);
    expect(res.body.issues.length).toBeGreaterThan(0);
    expect(res.body.issues[0]).toEqual({ path: expect.any(String), message: expect.any(String) });
  });

  it("a 400 no field caused names the whole request (path '')", async () => {
    const admin = await makeAdmin();
    const res = await api(newmocRoute, {
      path: "/api/newmoc",
      query: { cursor: "not-a-cursor" },
      token: await tokenOf(admin),
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: "cursor", message: expect.any(String) }]);
  });
});

describe("CSV from every list", () => {
  const LISTS: [string, RouteModule, string][] = [
    ["/api/newmoc", newmocRoute, "Serial"],
    ["/api/getAllMoc", getAllMocRoute, "Serial"],
    ["/api/allPcr", allPcrRoute, "Serial"],
    ["/api/getAllPcr", getAllPcrRoute, "Serial"],
    ["/api/pcr/summary", summaryRoute, "Serial"],
    ["/api/oldMoc", oldMocRoute, "Serial"],
    ["/api/oldPcr", oldPcrRoute, "Serial"],
    ["/api/users", usersRoute, "Name"],
    ["/api/year-end-review", reviewRoute, "Year"],
  ];
  it.each(LISTS)("%s answers CSV to Accept: text/csv and to format=csv", async (path, route, first) => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    // Year-end reviews are read by admins, HSEQ and full access only.
    const reader = path === "/api/year-end-review" ? await makeAdmin() : cast.implementer;
    for (const ask of [{ headers: { Accept: "text/csv" } }, { query: { format: "csv" } }]) {
      const res = await call(route, { path, token: await tokenOf(reader), ...ask });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
      expect(res.text.split("\r\n")[0]).toMatch(new RegExp(`^\uFEFF?"?${first}`));
      if (path === "/api/newmoc") expect(res.text).toContain(moc.serial_num);
      if (path === "/api/users") expect(res.text).toContain(cast.implementer.email);
    }
  });

  it("GET /api/newmoc as CSV has only the caller's MOCs (all for an admin)", async () => {
    const cast = await makeCast();
    const theirs = await createMocOk(cast);
    const other = await createMocOk(await makeCast());
    const mine = await call(newmocRoute, {
      path: "/api/newmoc",
      query: { format: "csv" },
      token: await tokenOf(cast.implementer),
    });
    expect(mine.text).toContain(theirs.serial_num);
    expect(mine.text).not.toContain(`${other.serial_num},`);
    const all = await call(newmocRoute, {
      path: "/api/newmoc",
      query: { format: "csv" },
      token: await tokenOf(await makeAdmin()),
    });
    expect(all.text).toContain(theirs.serial_num);
    expect(all.text).toContain(other.serial_num);
  });
});

/** The `limit` and `cursor` of a `Link: <...>; rel="next"` header, or null on the last page. */
function nextOf(res: CallResult): Record<string, string> | null {
  const link = res.headers.get("Link");
  if (!link) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  const url = new URL(match![1]!, "http://localhost");
  return Object.fromEntries(url.searchParams);
}

async function walk(route: RouteModule, path: string, token: string, limit: number, between: () => Promise<unknown>) {
  const seen: string[] = [];
  let query: Record<string, string> | null = { limit: String(limit) };
  let pages = 0;
  while (query) {
    const res = await api(route, { path, query, token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...res.body.data.map((d: { _id: string }) => d._id));
    query = nextOf(res);
    pages += 1;
    if (query) await between();
  }
  return { seen, pages };
}

describe("keyset paging", () => {
  it.each([
    ["/api/newmoc", newmocRoute],
    ["/api/getAllMoc", getAllMocRoute],
  ])("%s: pages of `limit` while MOCs are created lose and repeat no MOC", async (path, route) => {
    const admin = await makeAdmin();
    const token = await tokenOf(admin);
    const cast = await makeCast();
    for (let i = 0; i < 5; i++) await createMocOk(cast);
    const before = await api(route, { path, token });
    const all = before.body.data.map((d: { _id: string }) => d._id);
    expect(before.headers.get("Link")).toBeNull();
    const created: string[] = [];
    const { seen, pages } = await walk(route, path, token, 2, async () => created.push((await createMocOk(cast))._id));
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(all.length / 2));
    for (const id of created) expect(seen).not.toContain(id);
    // The list answered whole still has everything, the new ones first.
    const after = await api(route, { path, token });
    expect(after.body.data.map((d: { _id: string }) => d._id)).toEqual([...created.reverse(), ...all]);
  });

  it("/api/allPcr pages the same way", async () => {
    const admin = await makeAdmin();
    const token = await tokenOf(admin);
    await makeHolders("paging");
    const originator = await makeUser();
    for (let i = 0; i < 5; i++) await createPcrOk(originator);
    const all = (await api(allPcrRoute, { path: "/api/allPcr", token })).body.data.map((d: { _id: string }) => d._id);
    const created: string[] = [];
    const { seen } = await walk(allPcrRoute, "/api/allPcr", token, 3, async () =>
      created.push((await createPcrOk(originator))._id),
    );
    expect(seen).toEqual(all);
    for (const id of created) expect(seen).not.toContain(id);
  });

  /**
   * The lists answered whole in another order (users by name, the archive by date raised, reviews
   * by year, the summary) page newest first, so a row created during the walk lands before it.
   */
  const archiveBody = (i: number, extra: Record<string, unknown>) => ({
    serial_num: `${i}-${1990 + (i % 20)}-${Math.random().toString(36).slice(2, 8)}`,
    title: `Paged record ${i}`,
    ...extra,
    originator_name: "Jan de Vries",
    // Raised dates out of creation order: the whole list's order is not the walk's.
    date_raised: `20${String(10 + ((i * 7) % 13)).padStart(2, "0")}-03-02`,
    date_closed: null,
    status: "open",
    attachments: [],
    notes: "",
  });
  let made = 0;
  const LISTS: [string, RouteModule, (admin: { _id: string }) => Promise<string>][] = [
    [
      "/api/users",
      usersRoute,
      async () => (await makeUser({ name: `Paged ${String.fromCharCode(90 - (made++ % 26))}` }))._id,
    ],
    [
      "/api/oldMoc",
      oldMocRoute,
      async (admin) => {
        const body = archiveBody(made++, { description: "Paged", department: "Engineering" });
        const res = await api(oldMocRoute, { method: "POST", path: "/api/oldMoc", token: await tokenOf(admin), body });
        expect(res.status, res.text).toBe(200);
        return res.body.data._id as string;
      },
    ],
    [
      "/api/oldPcr",
      oldPcrRoute,
      async (admin) => {
        const body = archiveBody(made++, { procedure: "Paged procedure" });
        const res = await api(oldPcrRoute, { method: "POST", path: "/api/oldPcr", token: await tokenOf(admin), body });
        expect(res.status, res.text).toBe(200);
        return res.body.data._id as string;
      },
    ],
    [
      "/api/year-end-review",
      reviewRoute,
      async (admin) => {
        const year = 1950 + (made++ % 40);
        const body = { year, title: `Review ${year}`, sections: [], participants: [], actions: [] };
        const res = await api(reviewRoute, {
          method: "POST",
          path: "/api/year-end-review",
          token: await tokenOf(admin),
          body,
        });
        expect(res.status, res.text).toBe(200);
        return res.body.data._id as string;
      },
    ],
    ["/api/pcr/summary", summaryRoute, async () => (await createPcrOk(await makeUser()))._id],
  ];
  it.each(LISTS)("%s: pages of `limit` while rows are created lose and repeat no row", async (path, route, create) => {
    const admin = await makeAdmin();
    const token = await tokenOf(admin);
    if (path === "/api/pcr/summary") await makeHolders("summary-paging");
    for (let i = 0; i < 5; i++) await create(admin);
    const before = await api(route, { path, token });
    expect(before.headers.get("Link")).toBeNull();
    const all: string[] = before.body.data.map((d: { _id: string }) => d._id);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const created: string[] = [];
    const { seen, pages } = await walk(route, path, token, 2, async () => created.push(await create(admin)));
    expect(new Set(seen).size).toBe(seen.length);
    // The archive pages in its list's order (date raised by default: app/models/shared/keyset.ts), where a
    // record added during the walk may sort after the position and be seen; every other list pages
    // newest first, where it never is.
    const inListOrder = path === "/api/oldMoc" || path === "/api/oldPcr";
    expect(seen.filter((id) => !created.includes(id)).sort()).toEqual([...all].sort());
    if (!inListOrder) {
      expect(pages).toBe(Math.ceil(all.length / 2));
      for (const id of created) expect(seen).not.toContain(id);
    }
    // Answered whole, the list still has everything, the new rows too.
    const after = await api(route, { path, token });
    expect([...after.body.data.map((d: { _id: string }) => d._id)].sort()).toEqual([...all, ...created].sort());
  });

  it("/api/users: a rename during the walk (which moves the account in the name order) loses no account", async () => {
    const admin = await makeAdmin();
    const token = await tokenOf(admin);
    const people: { _id: string }[] = [];
    for (let i = 0; i < 4; i++) people.push(await makeUser({ name: `Aaron ${i}` }));
    const all = (await api(usersRoute, { path: "/api/users", token })).body.data.map((d: { _id: string }) => d._id);
    let renamed = 0;
    const { seen } = await walk(usersRoute, "/api/users", token, 2, async () => {
      const person = people[renamed++ % people.length]!;
      const res = await api(usersRoute, {
        method: "PUT",
        path: "/api/users",
        token,
        body: { _id: person._id, name: `Zed ${renamed}` },
      });
      expect(res.status, res.text).toBe(200);
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...all].sort());
  });

  it("limit out of range is a 400 naming limit", async () => {
    const token = await tokenOf(await makeAdmin());
    for (const limit of ["0", "501", "x", "1.5"]) {
      const res = await api(getAllMocRoute, { path: "/api/getAllMoc", query: { limit }, token });
      expect(res.status, limit).toBe(400);
      expect(res.body.issues).toEqual([{ path: "limit", message: expect.any(String) }]);
    }
  });
});
