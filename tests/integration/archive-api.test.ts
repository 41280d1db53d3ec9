/**
 * /api/oldMoc and /api/oldPcr (docs/api-contract.md, app/models/authz/authz.server.ts, docs/decisions/010-legacy-archive.md), the same table of cases for
 * both kinds: the CRUD contract, PATCH as a partial update, who may write (admins and HSEQ) and who
 * may only read, every validation rule, duplicate serials, unknown and malformed ids, malformed and
 * oversized bodies; and after every refused request, the archive exactly as it was.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as oldMocItem from "~/routes/api+/oldMoc.$id";
import * as oldMoc from "~/routes/api+/oldMoc";
import * as oldPcrItem from "~/routes/api+/oldPcr.$id";
import * as oldPcr from "~/routes/api+/oldPcr";
import { searchArchive } from "~/models/archive/archive.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { tokenOf } from "../helpers/pcr";
import { call, type CallOptions, type CallResult } from "../helpers/request";

type Kind = "moc" | "pcr";
type Who = PublicUser | null;

const KINDS = [
  {
    kind: "moc" as Kind,
    path: "/api/oldMoc",
    route: oldMoc,
    item: oldMocItem,
    table: "legacy_mocs",
    label: "legacy MOC",
    own: { description: "Replace the bilge pump with a larger model", department: "engineering" },
    ownKeys: ["description", "department"],
    otherKey: "procedure",
  },
  {
    kind: "pcr" as Kind,
    path: "/api/oldPcr",
    route: oldPcr,
    item: oldPcrItem,
    table: "legacy_pcrs",
    label: "legacy PCR",
    own: { procedure: "Deck manual, chapter 4: mooring" },
    ownKeys: ["procedure"],
    otherKey: "department",
  },
];
type KindCase = (typeof KINDS)[number];

const serial = () => `${Number.parseInt(randomBytes(3).toString("hex"), 16)}-2014`;

function body(k: KindCase, overrides: Record<string, unknown> = {}) {
  return {
    serial_num: serial(),
    title: "Bilge pump replacement",
    ...k.own,
    originator_name: "Jan de Vries",
    date_raised: "2014-03-02",
    date_closed: "2014-05-20",
    status: "closed",
    attachments: ["https://files.example.com/moc/12-2014.pdf"],
    notes: "Scanned from the 2014 binder",
    ...overrides,
  };
}

let people: Record<"admin" | "hseq" | "full" | "standard", PublicUser>;

beforeAll(async () => {
  const [admin, hseq, full, standard] = await Promise.all([
    makeAdmin({ name: "Ada Admin", department: "engineering", access: "standard" }),
    makeUser({ name: "Hanna Hseq", department: "hseq" }),
    makeUser({ name: "Fritz Full", department: "fleet", access: "full" }),
    makeUser({ name: "Sam Standard", department: "operations" }),
  ]);
  people = { admin: admin!, hseq: hseq!, full: full!, standard: standard! };
});

async function as(who: Who, route: Parameters<typeof api>[0], options: CallOptions): Promise<CallResult> {
  return api(route, { ...options, token: who ? await tokenOf(who) : undefined });
}

const client = (k: KindCase) => ({
  list: (who: Who) => as(who, k.route, { path: k.path }),
  get: (who: Who, id: string) => as(who, k.item, { path: `${k.path}/${id}`, params: { id } }),
  post: (who: Who, b: unknown) => as(who, k.route, { method: "POST", path: k.path, body: b }),
  put: (who: Who, b: unknown) => as(who, k.route, { method: "PUT", path: k.path, body: b }),
  patch: (who: Who, id: string, b: unknown) =>
    as(who, k.item, { method: "PATCH", path: `${k.path}/${id}`, params: { id }, body: b }),
  del: (who: Who, id?: string) =>
    as(who, k.route, { method: "DELETE", path: k.path, query: id === undefined ? {} : { id } }),
});

/** Every row of the kind's table, as stored. */
async function tableState(k: KindCase) {
  return [...(await getDb().execute(sql.raw(`select * from ${k.table} order by id`)))];
}

/** Runs a request that must be refused and checks the archive did not change. */
async function unchanged(k: KindCase, run: () => Promise<CallResult>): Promise<CallResult> {
  const before = await tableState(k);
  const res = await run();
  expect(await tableState(k)).toEqual(before);
  return res;
}

function expectError(res: CallResult, status: number) {
  expect(res.status, res.text).toBe(status);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message.length).toBeGreaterThan(0);
}

function expectIssue(res: CallResult, path: string, message?: RegExp) {
  expectError(res, 400);
  const issues = res.body.issues as { path: string; message: string }[];
  expect(Array.isArray(issues), res.text).toBe(true);
  const match = issues.find((i) => i.path === path);
  expect(match, `${path} in ${res.text}`).toBeTruthy();
  if (message) expect(match!.message).toMatch(message);
}

async function created(k: KindCase, overrides: Record<string, unknown> = {}) {
  const res = await client(k).post(people.admin, body(k, overrides));
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe.each(KINDS)("$path", (k) => {
  const c = client(k);

  describe("CRUD", () => {
    it("POST creates the record and answers { status: 200, data } with the document", async () => {
      const b = body(k);
      const res = await c.post(people.hseq, b);
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe(200);
      const doc = res.body.data;
      expect(Object.keys(doc)).toEqual([
        "_id",
        "serial_num",
        "title",
        ...k.ownKeys,
        "originator_name",
        "date_raised",
        "date_closed",
        "status",
        "attachments",
        "notes",
        "createdAt",
        "updatedAt",
        "created_by",
        "updated_by",
      ]);
      expect(doc).toMatchObject(b);
      expect(doc._id).toMatch(/^[0-9a-f-]{36}$/);
      expect(doc.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(doc.created_by).toEqual({ _id: people.hseq._id, name: "Hanna Hseq" });
      expect(doc.updated_by).toEqual({ _id: people.hseq._id, name: "Hanna Hseq" });
      const [row] = await getDb().execute(sql.raw(`select * from ${k.table} where id = '${doc._id}'`));
      expect(row).toMatchObject({ serial_num: b.serial_num, title: b.title, attachments: b.attachments });
    });

    it("GET lists every record (latest raised first) and GET /[id] reads one, for any signed-in user", async () => {
      const older = await created(k, { date_raised: "2001-01-01", date_closed: null, status: "open" });
      const newer = await created(k, { date_raised: "2013-06-01", date_closed: null, status: "open" });
      for (const who of Object.values(people)) {
        const res = await c.list(who);
        expect(res.status, res.text).toBe(200);
        const ids = (res.body.data as { _id: string }[]).map((d) => d._id);
        expect(ids).toContain(older._id);
        expect(ids.indexOf(newer._id)).toBeLessThan(ids.indexOf(older._id));
        const dates = (res.body.data as { date_raised: string }[]).map((d) => d.date_raised);
        expect([...dates].sort().reverse()).toEqual(dates);
        const one = await c.get(who, older._id);
        expect(one.status).toBe(200);
        expect(one.body.data).toEqual(older);
      }
    });

    it("PUT changes only the fields sent (_id in the body); the others are kept", async () => {
      const doc = await created(k);
      const change = { _id: doc._id, title: "Bilge pump replacement (corrected)", originator_name: "J. de Vries" };
      const res = await c.put(people.admin, change);
      expect(res.status, res.text).toBe(200);
      const { updatedAt: _u, updated_by: _b, ...kept } = doc;
      expect(res.body.data).toMatchObject({ ...kept, ...change });
      expect(res.body.data.createdAt).toBe(doc.createdAt);
      expect((await c.get(people.standard, doc._id)).body.data).toEqual(res.body.data);
    });

    it("PUT accepts a document as read (timestamps and writers are ignored)", async () => {
      const doc = await created(k);
      const res = await c.put(people.hseq, { ...doc, title: "Read, changed, written back" });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.title).toBe("Read, changed, written back");
      expect(res.body.data.updated_by).toEqual({ _id: people.hseq._id, name: "Hanna Hseq" });
      expect(res.body.data.created_by).toEqual(doc.created_by);
    });

    it("PATCH changes only the fields sent", async () => {
      const doc = await created(k);
      const res = await c.patch(people.hseq, doc._id, { title: "New title only" });
      expect(res.status, res.text).toBe(200);
      const { title, updatedAt, updated_by, ...rest } = res.body.data;
      const { title: _t, updatedAt: _u, updated_by: _b, ...before } = doc;
      expect(title).toBe("New title only");
      expect(rest).toEqual(before);
      expect(updated_by).toEqual({ _id: people.hseq._id, name: "Hanna Hseq" });
      expect(updatedAt >= doc.updatedAt).toBe(true);
    });

    it("the status is derived from the closing date: date_closed null reopens, a date closes; a status that disagrees is 400", async () => {
      const doc = await created(k);
      for (const write of [
        () => c.patch(people.admin, doc._id, { status: "open" }),
        () => c.put(people.admin, { _id: doc._id, status: "open" }),
      ]) {
        expectIssue(await unchanged(k, write), "status", /open record has no closing date/);
      }
      const reopened = await c.patch(people.admin, doc._id, { date_closed: null });
      expect(reopened.body.data).toMatchObject({ status: "open", date_closed: null });
      expectIssue(
        await unchanged(k, () => c.put(people.admin, { _id: doc._id, status: "closed" })),
        "date_closed",
        /needs its closing date/,
      );
      const closed = await c.put(people.admin, { _id: doc._id, date_closed: "2015-01-31" });
      expect(closed.body.data).toMatchObject({ status: "closed", date_closed: "2015-01-31" });
      // A status that agrees is accepted (a document read can be sent back).
      const same = await c.patch(people.admin, doc._id, { status: "closed", notes: "Checked" });
      expect(same.body.data).toMatchObject({ status: "closed", date_closed: "2015-01-31", notes: "Checked" });
    });

    it("DELETE ?id= removes the record permanently and answers { _id }", async () => {
      const doc = await created(k);
      const res = await c.del(people.hseq, doc._id);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ status: 200, data: { _id: doc._id } });
      expectError(await c.get(people.admin, doc._id), 404);
      expectError(await c.del(people.hseq, doc._id), 404);
    });

    it("the status follows the closing date when left out", async () => {
      const open = await created(k, { status: undefined, date_closed: undefined });
      expect(open).toMatchObject({ status: "open", date_closed: null });
      const closed = await created(k, { status: undefined, date_closed: "2014-04-01" });
      expect(closed).toMatchObject({ status: "closed", date_closed: "2014-04-01" });
    });

    it("trims text and keeps line breaks in long text", async () => {
      const doc = await created(k, { serial_num: `  ${serial()}  `, title: "  Spaced  ", notes: "Line one\nLine two" });
      expect(doc.serial_num).not.toMatch(/^\s|\s$/);
      expect(doc.title).toBe("Spaced");
      expect(doc.notes).toBe("Line one\nLine two");
    });
  });

  describe("who may write", () => {
    const ROLES: { who: "admin" | "hseq" | "full" | "standard" | "anonymous"; status: number }[] = [
      { who: "admin", status: 200 },
      { who: "hseq", status: 200 },
      { who: "full", status: 403 },
      { who: "standard", status: 403 },
      { who: "anonymous", status: 401 },
    ];
    const person = (who: (typeof ROLES)[number]["who"]) => (who === "anonymous" ? null : people[who]);

    it.each(ROLES)("$who: POST answers $status", async ({ who, status }) => {
      const run = () => c.post(person(who), body(k));
      if (status === 200) expect((await run()).status).toBe(200);
      else expectError(await unchanged(k, run), status);
    });

    it.each(ROLES)("$who: PUT answers $status", async ({ who, status }) => {
      const doc = await created(k);
      const run = () => c.put(person(who), { ...body(k), _id: doc._id, serial_num: doc.serial_num, title: "By PUT" });
      if (status === 200) expect((await run()).body.data.title).toBe("By PUT");
      else expectError(await unchanged(k, run), status);
    });

    it.each(ROLES)("$who: PATCH answers $status", async ({ who, status }) => {
      const doc = await created(k);
      const run = () => c.patch(person(who), doc._id, { notes: "By PATCH" });
      if (status === 200) expect((await run()).body.data.notes).toBe("By PATCH");
      else expectError(await unchanged(k, run), status);
    });

    it.each(ROLES)("$who: DELETE answers $status", async ({ who, status }) => {
      const doc = await created(k);
      const run = () => c.del(person(who), doc._id);
      if (status === 200) expect((await run()).body.data).toEqual({ _id: doc._id });
      else expectError(await unchanged(k, run), status);
    });

    it("readers are refused before their body is looked at (403, not 400)", async () => {
      expectError(await unchanged(k, () => c.post(people.standard, { nonsense: true })), 403);
      expectError(await unchanged(k, () => c.patch(people.full, "not-a-uuid", "{")), 403);
    });

    it("anonymous callers cannot read either", async () => {
      expectError(await c.list(null), 401);
      expectError(await c.get(null, randomUUID()), 401);
    });

    it("a cookie-borne write from another origin is refused", async () => {
      const token = await tokenOf(people.admin);
      const crossSite = await unchanged(k, () =>
        api(k.route, {
          method: "POST",
          path: k.path,
          body: body(k),
          token,
          cookie: true,
          headers: { Origin: "https://evil.example" },
        }),
      );
      expectError(crossSite, 403);
    });
  });

  describe("validation (400 with issues; nothing saved)", () => {
    const long = (n: number) => "x".repeat(n);
    const CASES: { name: string; change: Record<string, unknown>; path: string; message?: RegExp }[] = [
      { name: "no serial_num", change: { serial_num: undefined }, path: "serial_num", message: /serial number/ },
      { name: "blank serial_num", change: { serial_num: "   " }, path: "serial_num" },
      { name: "serial_num with odd characters", change: { serial_num: "12<script>" }, path: "serial_num" },
      { name: "serial_num too long", change: { serial_num: long(51) }, path: "serial_num", message: /at most 50/ },
      { name: "no title", change: { title: undefined }, path: "title", message: /Enter the title/ },
      { name: "title not text", change: { title: 5 }, path: "title", message: /must be text/ },
      { name: "title too long", change: { title: long(201) }, path: "title", message: /at most 200/ },
      { name: "title on two lines", change: { title: "a\nb" }, path: "title", message: /one line/ },
      { name: "a NUL byte in notes", change: { notes: "a\u0000b" }, path: "notes" },
      { name: "notes too long", change: { notes: long(10_001) }, path: "notes", message: /at most 10000/ },
      { name: "no originator_name", change: { originator_name: "" }, path: "originator_name" },
      { name: "no date_raised", change: { date_raised: undefined }, path: "date_raised", message: /YYYY-MM-DD/ },
      { name: "date_raised not a real date", change: { date_raised: "2014-02-30" }, path: "date_raised" },
      { name: "date_raised in another format", change: { date_raised: "02/03/2014" }, path: "date_raised" },
      { name: "date_raised with a time", change: { date_raised: "2014-03-02T10:00:00Z" }, path: "date_raised" },
      {
        name: "date_raised in the future",
        change: { date_raised: "2999-01-01", date_closed: null, status: "open" },
        path: "date_raised",
        message: /future/,
      },
      { name: "date_raised before 1900", change: { date_raised: "1899-12-31" }, path: "date_raised" },
      { name: "date_closed not a date", change: { date_closed: "soon" }, path: "date_closed" },
      {
        name: "closed before raised",
        change: { date_closed: "2014-03-01" },
        path: "date_closed",
        message: /before the date raised/,
      },
      {
        name: "closed without a closing date",
        change: { date_closed: null, status: "closed" },
        path: "date_closed",
        message: /needs its closing date/,
      },
      {
        name: "open with a closing date",
        change: { status: "open" },
        path: "status",
        message: /open record has no closing date/,
      },
      { name: "an unknown status", change: { status: "archived" }, path: "status", message: /open or closed/ },
      {
        name: "a javascript: attachment",
        change: { attachments: ["javascript:alert(1)"] },
        path: "attachments.0",
        message: /http/,
      },
      {
        name: "an ftp attachment",
        change: { attachments: ["https://ok.example/a.pdf", "ftp://files.example/a.pdf"] },
        path: "attachments.1",
      },
      { name: "a data: attachment", change: { attachments: ["data:text/html,<b>x</b>"] }, path: "attachments.0" },
      { name: "an attachment that is not a link", change: { attachments: ["scan of page 2"] }, path: "attachments.0" },
      {
        name: "a link with credentials",
        change: { attachments: ["https://user:pw@files.example/a.pdf"] },
        path: "attachments.0",
      },
      { name: "attachments not a list", change: { attachments: "https://files.example/a.pdf" }, path: "attachments" },
      {
        name: "21 attachments",
        change: { attachments: Array.from({ length: 21 }, (_, i) => `https://f.example/${i}`) },
        path: "attachments",
        message: /At most 20/,
      },
      { name: "an unknown field", change: { colour: "red" }, path: "", message: /Unknown field colour/ },
      { name: "the other kind's field", change: { [k.otherKey]: "x" }, path: "", message: new RegExp(k.otherKey) },
      { name: "an _id on POST", change: { _id: randomUUID() }, path: "", message: /_id/ },
    ];

    it.each(CASES)("POST with $name", async ({ change, path, message }) => {
      const b: Record<string, unknown> = { ...body(k), ...change };
      for (const key of Object.keys(b)) if (b[key] === undefined) delete b[key];
      expectIssue(await unchanged(k, () => c.post(people.admin, b)), path, message);
    });

    it.each(CASES.filter((x) => !Object.values(x.change).includes(undefined) && (x.path !== "" || !x.change._id)))(
      "PUT with $name",
      async ({ change, path, message }) => {
        const doc = await created(k);
        const b: Record<string, unknown> = { ...body(k), serial_num: doc.serial_num, _id: doc._id, ...change };
        for (const key of Object.keys(b)) if (b[key] === undefined) delete b[key];
        expectIssue(await unchanged(k, () => c.put(people.admin, b)), path, message);
      },
    );

    it.each(CASES.filter((x) => !Object.values(x.change).includes(undefined) && !x.change._id))(
      "PATCH with $name",
      async ({ change, path, message }) => {
        const doc = await created(k);
        expectIssue(await unchanged(k, () => c.patch(people.admin, doc._id, change)), path, message);
      },
    );

    it("PATCH that would leave the record inconsistent is refused", async () => {
      const doc = await created(k);
      expectIssue(
        await unchanged(k, () => c.patch(people.admin, doc._id, { date_raised: "2014-06-01" })),
        "date_closed",
        /before the date raised/,
      );
      expectIssue(
        await unchanged(k, () => c.patch(people.admin, doc._id, { status: "closed", date_closed: null })),
        "date_closed",
      );
      expectIssue(
        await unchanged(k, () => c.patch(people.admin, doc._id, { status: "open", date_closed: "2014-06-01" })),
        "status",
      );
      expectIssue(await unchanged(k, () => c.patch(people.admin, doc._id, { status: "archived" })), "status");
    });

    it("PATCH with nothing to change, or with another record's _id, is refused", async () => {
      const doc = await created(k);
      expectIssue(await unchanged(k, () => c.patch(people.admin, doc._id, {})), "", /at least one/);
      expectIssue(await unchanged(k, () => c.patch(people.admin, doc._id, { _id: randomUUID(), title: "x" })), "_id");
      const same = await c.patch(people.admin, doc._id, { _id: doc._id, title: "Same id is fine" });
      expect(same.status, same.text).toBe(200);
    });

    it("PUT without _id, or with nothing to change, is refused", async () => {
      expectIssue(await unchanged(k, () => c.put(people.admin, body(k))), "_id");
      const doc = await created(k);
      expectIssue(await unchanged(k, () => c.put(people.admin, { _id: doc._id })), "", /at least one/);
    });

    it.each([
      ["malformed JSON", "{ not json"],
      ["an empty body", ""],
      ["a JSON array", "[]"],
      ["JSON null", "null"],
      ["a JSON string", '"text"'],
    ])("POST and PUT with %s: 400", async (_name, raw) => {
      expectError(await unchanged(k, () => c.post(people.admin, raw)), 400);
      expectError(await unchanged(k, () => c.put(people.admin, raw)), 400);
      expectError(await unchanged(k, () => c.patch(people.admin, randomUUID(), raw)), 400);
    });

    it("a body over 1 MiB: 413", async () => {
      const huge = body(k, { notes: "n".repeat(1024 * 1024 + 10) });
      expectError(await unchanged(k, () => c.post(people.admin, huge)), 413);
      const doc = await created(k);
      expectError(
        await unchanged(k, () => c.patch(people.admin, doc._id, { notes: "n".repeat(1024 * 1024 + 10) })),
        413,
      );
    });
  });

  describe("serial numbers, ids", () => {
    it("a duplicate serial number is 409 with a clear message, on POST, PUT and PATCH", async () => {
      const first = await created(k);
      const second = await created(k);
      const post = await unchanged(k, () => c.post(people.admin, body(k, { serial_num: first.serial_num })));
      expectError(post, 409);
      expect(post.body.message).toBe(`A ${k.label} with serial number ${first.serial_num} already exists`);
      const { createdAt: _c, updatedAt: _u, created_by: _cb, updated_by: _ub, ...second_ } = second;
      expectError(await unchanged(k, () => c.put(people.admin, { ...second_, serial_num: first.serial_num })), 409);
      expectError(
        await unchanged(k, () => c.patch(people.hseq, second._id, { serial_num: ` ${first.serial_num} ` })),
        409,
      );
    });

    it("the same serial number may exist once per kind", async () => {
      const shared = serial();
      const other = KINDS.find((x) => x.kind !== k.kind)!;
      expect((await client(other).post(people.admin, body(other, { serial_num: shared }))).status).toBe(200);
      expect((await c.post(people.admin, body(k, { serial_num: shared }))).status).toBe(200);
    });

    it("an unknown id is 404 on GET, PUT, PATCH and DELETE", async () => {
      const id = randomUUID();
      expectError(await c.get(people.standard, id), 404);
      expectError(await unchanged(k, () => c.put(people.admin, { ...body(k), _id: id })), 404);
      expectError(await unchanged(k, () => c.patch(people.admin, id, { title: "x" })), 404);
      const del = await unchanged(k, () => c.del(people.admin, id));
      expectError(del, 404);
      expect(del.body.message).toBe(`No ${k.label} with this id`);
    });

    it("an ill-formed id is 400 on GET, PUT, PATCH and DELETE; a missing ?id= is 400", async () => {
      for (const bad of ["not-a-uuid", "1", "' or 1=1 --"]) {
        expectError(await c.get(people.standard, bad), 400);
        expectIssue(await unchanged(k, () => c.put(people.admin, { ...body(k), _id: bad })), "_id");
        expectError(await unchanged(k, () => c.patch(people.admin, bad, { title: "x" })), 400);
        expectIssue(await unchanged(k, () => c.del(people.admin, bad)), "id");
      }
      expectIssue(await unchanged(k, () => c.del(people.admin)), "id");
    });

    it("other methods are 405 with Allow", async () => {
      const res = await as(people.admin, k.route, { method: "PATCH", path: k.path, body: {} });
      expectError(res, 405);
      expect(res.headers.get("Allow")).toBe("GET, POST, PUT, DELETE");
    });
  });

  describe("the archive page's query", () => {
    it("searches, filters by status and year, sorts both ways and pages", async () => {
      const tag = randomBytes(4).toString("hex");
      const make = (s: string, raised: string, closed: string | null, extra: Record<string, unknown> = {}) =>
        created(k, {
          serial_num: s,
          title: `Query ${tag} ${s}`,
          date_raised: raised,
          date_closed: closed,
          status: closed ? "closed" : "open",
          ...extra,
        });
      await make(`9-2010-${tag}`, "2010-05-01", "2010-06-01");
      await make(`10-2010-${tag}`, "2010-07-01", null);
      await make(`2-2011-${tag}`, "2011-01-15", "2011-03-01", { notes: `needle-${tag}` });
      const q = (extra: Record<string, unknown>) =>
        searchArchive(people.standard, k.kind, { q: tag, sort: "raised", ...extra }).then((r) => ({
          total: r.total,
          serials: r.rows.map((d) => d.serial_num),
        }));
      expect(await q({})).toEqual({ total: 3, serials: [`2-2011-${tag}`, `10-2010-${tag}`, `9-2010-${tag}`] });
      expect((await q({ dir: "asc" })).serials).toEqual([`9-2010-${tag}`, `10-2010-${tag}`, `2-2011-${tag}`]);
      // Serial numbers sort as "{count}-{year}": by year, then by count (9 before 10).
      expect((await q({ sort: "serial" })).serials).toEqual([`9-2010-${tag}`, `10-2010-${tag}`, `2-2011-${tag}`]);
      expect((await q({ sort: "serial", dir: "desc" })).serials).toEqual([
        `2-2011-${tag}`,
        `10-2010-${tag}`,
        `9-2010-${tag}`,
      ]);
      expect((await q({ status: "open" })).serials).toEqual([`10-2010-${tag}`]);
      expect((await q({ year: 2010 })).total).toBe(2);
      expect((await q({ q: `needle-${tag}` })).serials).toEqual([`2-2011-${tag}`]);
      expect((await q({ sort: "closed", dir: "desc" })).serials).toEqual([
        `2-2011-${tag}`,
        `9-2010-${tag}`,
        `10-2010-${tag}`,
      ]);
      expect(await q({ pageSize: 2, page: 2 })).toEqual({ total: 3, serials: [`9-2010-${tag}`] });
      // "%" and "_" are searched for as text, not as patterns.
      expect((await q({ q: "%" })).total).toBe(0);
    });
  });
});

describe("department filter (legacy MOCs)", () => {
  it("filters by the department named", async () => {
    const k = KINDS[0]!;
    const tag = randomBytes(4).toString("hex");
    await created(k, { title: `Dept ${tag}`, department: `Dock ${tag}` });
    await created(k, { title: `Dept ${tag}`, department: "engineering" });
    const { rows } = await searchArchive(people.standard, "moc", {
      q: `Dept ${tag}`,
      department: `Dock ${tag}`,
      sort: "raised",
    });
    expect(rows.map((r) => r.department)).toEqual([`Dock ${tag}`]);
  });
});

// Issue 40, findings 12 and 15: the documented filters and order apply to the JSON list and its
// pages as to its CSV (they applied to the CSV only), and a cursor serves only its own list and order.
describe.each(KINDS)("$path: filters and order, JSON, pages and CSV alike", (k) => {
  const tag = randomBytes(4).toString("hex");
  const list = async (query: Record<string, string>) =>
    as(people.standard, k.route, { path: k.path, query: { q: tag, ...query } });
  const serialsOf = (res: CallResult) => (res.body.data as { serial_num: string }[]).map((d) => d.serial_num);
  const nextCursor = (res: CallResult) => {
    const link = res.headers.get("Link");
    return link ? new URL(/<([^>]+)>/.exec(link)![1]!, "http://x").searchParams.get("cursor") : null;
  };
  /** Every page of `limit` rows, walked by the Link header. */
  async function walk(query: Record<string, string>, limit: number) {
    const serials: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      serials.push(...serialsOf(res));
      cursor = nextCursor(res);
    } while (cursor);
    return serials;
  }

  beforeAll(async () => {
    const make = (n: string, raised: string, closed: string | null, extra: Record<string, unknown> = {}) =>
      created(k, {
        serial_num: `${n}-${tag}`,
        title: `Crew ${tag} ${n}`,
        date_raised: raised,
        date_closed: closed,
        status: undefined,
        ...extra,
      });
    await make("10-2010", "2010-02-01", null, k.kind === "moc" ? { department: `Deck ${tag}` } : {});
    await make("9-2010", "2010-02-01", "2010-06-01", { title: `Anchor ${tag}` });
    await make("2-2011", "2011-01-15", "2011-03-01");
    await make("3-2011", "2011-05-15", null, { title: `zulu ${tag}` });
    await make("1-2012", "2012-07-01", "2012-09-01");
    await created(k, { title: "Not matched by the search" });
  });

  const QUERIES: Record<string, string>[] = [
    {},
    { status: "open" },
    { status: "closed" },
    { year: "2010" },
    { sort: "raised", dir: "asc" },
    { sort: "closed" },
    { sort: "closed", dir: "asc" },
    { sort: "serial" },
    { sort: "serial", dir: "desc" },
    { sort: "title" },
    { sort: "title", dir: "desc" },
    ...(k.kind === "moc" ? [{ department: `Deck ${tag}` }] : []),
  ];

  it.each(QUERIES)(
    "%o: the JSON list, its pages and its CSV hold the same rows in the archive page's order",
    async (query) => {
      const { rows } = await searchArchive(people.standard, k.kind, {
        q: tag,
        ...query,
        year: query.year ? Number(query.year) : undefined,
        sort: (query.sort ?? "raised") as never,
        dir: query.dir as never,
        pageSize: 100,
      });
      const expected = rows.map((r) => r.serial_num);
      expect(expected.length).toBeGreaterThan(0);
      const whole = await list(query);
      expect(whole.status, whole.text).toBe(200);
      expect(serialsOf(whole)).toEqual(expected);
      expect(await walk(query, 2)).toEqual(expected);
      // (A CSV download is `private, no-store`, so not through `api`, which expects JSON's `no-store`.)
      const csv = await call(k.route, {
        path: k.path,
        query: { q: tag, ...query, format: "csv" },
        token: await tokenOf(people.standard),
      });
      expect(csv.status, csv.text).toBe(200);
      const csvSerials = csv.text
        .replace(/^\uFEFF/, "")
        .trim()
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(",")[0]);
      expect(csvSerials).toEqual(expected);
    },
  );

  it("the search filters the JSON list (was every record)", async () => {
    const res = await list({});
    expect(serialsOf(res)).toHaveLength(5);
    expect(serialsOf(await list({ q: `Anchor ${tag}` }))).toEqual([`9-2010-${tag}`]);
  });

  it("a cursor serves only its own list and order; anything else is 400 and says why", async () => {
    const first = await list({ sort: "title", limit: "2" });
    const cursor = nextCursor(first)!;
    expect(cursor).toBeTruthy();
    const refused = "The cursor belongs to another list/order; start again without it, or keep the list's sort and dir";
    for (const query of [{ sort: "raised" }, { sort: "title", dir: "desc" }, {}] as Record<string, string>[]) {
      const res = await list({ ...query, cursor });
      expectError(res, 400);
      expect(res.body.issues).toEqual([{ path: "cursor", message: refused }]);
    }
    const other = KINDS.find((x) => x !== k)!;
    const elsewhere = await as(people.standard, other.route, { path: other.path, query: { sort: "title", cursor } });
    expectError(elsewhere, 400);
    expect(elsewhere.body.issues).toEqual([{ path: "cursor", message: refused }]);
    for (const bad of ["not-a-cursor", Buffer.from('{"at":"2020-01-01","id":"x"}').toString("base64url")]) {
      expectIssue(await list({ sort: "title", cursor: bad }), "cursor", /Not a cursor this API gave/);
    }
    // The same list and order goes on where it stopped.
    const next = await list({ sort: "title", cursor, limit: "2" });
    expect(next.status, next.text).toBe(200);
    expect(serialsOf(next)).not.toContain(serialsOf(first)[0]);
  });
});
