/**
 * GET/POST/PUT /api/year-end-review as a client sees it (docs/api-contract.md, app/models/authz/authz.server.ts, docs/decisions/011-year-end-reviews.md):
 * who writes and who reads, validation with the offending paths, sanitised rich text, the MOC
 * summary counted from the year's MOCs (statuses, departments, years, deleted ones), PUT merging
 * the fields sent into the stored document, 404s, refused requests that write nothing, and a list whose query count does
 * not grow with the number of reviews.
 */
import { randomUUID } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as reviewRoute from "~/routes/api+/year-end-review";
import * as usersRoute from "~/routes/api+/users";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import type { QueryCounter } from "#db/client";
import { chatRooms, mocForms, mocs, users, yearEndReviews } from "#db/schema";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import { ISO_Z, tokenOf, UUID } from "../helpers/moc-flow";
import type { CallOptions, CallResult } from "../helpers/request";

const PATH = "/api/year-end-review";

async function as(who: { _id: string } | null, options: CallOptions): Promise<CallResult> {
  return api(reviewRoute, { path: PATH, ...options, token: who ? await tokenOf(who) : undefined });
}
const post = (who: { _id: string } | null, body: unknown) => as(who, { method: "POST", body });
const put = (who: { _id: string } | null, id: string, body: unknown) => as(who, { method: "PUT", query: { id }, body });
const getOne = (who: { _id: string } | null, id: string) => as(who, { query: { id } });
const getAll = (who: { _id: string } | null) => as(who, {});

function expectOk(res: CallResult) {
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe(200);
  return res.body.data;
}

function expectError(res: CallResult, status: number, paths?: string[]) {
  expect(res.status, res.text).toBe(status);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe("string");
  if (paths) {
    const got = (res.body.issues ?? []).map((i: { path: string }) => i.path);
    for (const path of paths) expect(got, res.text).toContain(path);
  }
}

let admin: PublicUser; // role admin, engineering: admin by role alone
let hseq: PublicUser; // department hseq, standard access
let full: PublicUser; // access full, not hseq
let standard: PublicUser;
let alice: PublicUser;
let bob: PublicUser;

beforeAll(async () => {
  [admin, hseq, full, standard, alice, bob] = await Promise.all([
    makeUser({ name: "Ada Admin", role: "admin", department: "engineering", access: "standard" }),
    makeUser({ name: "Hana Hseq", department: "hseq" }),
    makeUser({ name: "Finn Full", department: "operations", access: "full" }),
    makeUser({ name: "Stan Standard", department: "fleet" }),
    makeUser({ name: "Alice Participant", department: "operations" }),
    makeUser({ name: "Bob Owner", department: "engineering" }),
  ]);
});

function reviewBody(overrides: Record<string, unknown> = {}) {
  return {
    year: 1990,
    title: "Year-end review 1990",
    sections: [
      { heading: "Overview", body: "<p>The year in <strong>short</strong></p>" },
      { heading: "Lessons", body: "<ul><li>Plan earlier</li></ul>" },
    ],
    participants: [alice._id, bob._id],
    effectiveness: "<p>Mostly effective</p>",
    improvements: "<p>Faster approvals</p>",
    issues: "<p>Late verifications</p>",
    actions: [
      { description: "Shorten the approval step", owner: bob._id, due: "1991-03-31", status: "open" },
      { description: "Train the verifiers", owner: alice._id, due: "1991-06-30", status: "in_progress" },
    ],
    ...overrides,
  };
}

const reviewRows = () => getDb().select().from(yearEndReviews).orderBy(asc(yearEndReviews.id));

/** Runs a refused request and checks that the reviews table is exactly as before. */
async function unchanged(run: () => Promise<CallResult>): Promise<CallResult> {
  const before = await reviewRows();
  const res = await run();
  expect(await reviewRows()).toEqual(before);
  return res;
}

// ---------------------------------------------------------------------------------------------
// MOCs straight into the tables, with a chosen creation time

let serial = 0;
async function insertMoc(options: {
  at: string;
  status?: string;
  completed?: boolean;
  deleted?: boolean;
  originator?: PublicUser;
  /** Part A's department-of-change; `null` leaves the MOC without a Part A form. */
  department?: string | null;
}) {
  serial += 1;
  const db = getDb();
  const [room] = await db.insert(chatRooms).values({}).returning();
  const created = new Date(options.at);
  const [moc] = await db
    .insert(mocs)
    .values({
      serialNum: `${serial}-9${String(serial).padStart(3, "0")}`,
      serialYear: 9000 + serial,
      serialCount: serial,
      status: (options.status ?? "b") as never,
      completed: options.completed ?? false,
      isDeleted: options.deleted ?? false,
      originatorId: (options.originator ?? bob)._id,
      chatId: room!.id,
      createdAt: created,
      updatedAt: created,
    })
    .returning();
  if (options.department !== null) {
    await db.insert(mocForms).values({
      mocId: moc!.id,
      kind: "originator",
      data: { "department-of-change": { value: options.department ?? "engineering" } },
    });
  }
  return moc!;
}

// ---------------------------------------------------------------------------------------------

describe("who may write and read", () => {
  it("admins (by role) and the HSEQ department create and edit; full-access and standard users get 403", async () => {
    const byAdmin = expectOk(await post(admin, reviewBody({ title: "By the admin" })));
    const byHseq = expectOk(await post(hseq, reviewBody({ title: "By HSEQ" })));
    expect(byAdmin.createdBy._id).toBe(admin._id);
    expect(byHseq.createdBy._id).toBe(hseq._id);

    expectOk(await put(hseq, byAdmin._id, reviewBody({ title: "Edited by HSEQ" })));
    expectOk(await put(admin, byHseq._id, reviewBody({ title: "Edited by the admin" })));

    for (const who of [full, standard]) {
      const created = await unchanged(() => post(who, reviewBody()));
      expectError(created, 403);
      expect(created.body.message).toMatch(/admins and the HSEQ department/);
      expectError(await unchanged(() => put(who, byAdmin._id, reviewBody({ title: "Not allowed" }))), 403);
      // 403 comes before looking at the body or the id.
      expectError(await unchanged(() => post(who, { nonsense: true })), 403);
      expectError(await unchanged(() => put(who, randomUUID(), reviewBody())), 403);
    }
  });

  it("every signed-in user reads the list and each review; nobody signed out reads or writes", async () => {
    const doc = expectOk(await post(admin, reviewBody({ title: "Readable by all" })));
    for (const who of [admin, hseq, full, standard, alice]) {
      const one = expectOk(await getOne(who, doc._id));
      expect(one.title).toBe("Readable by all");
      const all = expectOk(await getAll(who));
      expect(all.map((r: { _id: string }) => r._id)).toContain(doc._id);
    }
    expectError(await getAll(null), 401);
    expectError(await getOne(null, doc._id), 401);
    expectError(await unchanged(() => post(null, reviewBody())), 401);
    expectError(await unchanged(() => put(null, doc._id, reviewBody())), 401);
    const badToken = await api(reviewRoute, { path: PATH, token: "not-a-token" });
    expectError(badToken, 401);
  });

  it("a cookie-authenticated write from another origin is refused", async () => {
    const res = await unchanged(async () =>
      api(reviewRoute, {
        path: PATH,
        method: "POST",
        body: reviewBody(),
        token: await tokenOf(admin),
        cookie: true,
        headers: { Origin: "https://evil.example" },
      }),
    );
    expectError(res, 403);
  });
});

describe("the document", () => {
  it("POST answers { status: 200, data } with the review populated as on read", async () => {
    const res = await post(hseq, reviewBody());
    const doc = expectOk(res);
    expect(doc._id).toMatch(UUID);
    expect(doc).toMatchObject({
      year: 1990,
      title: "Year-end review 1990",
      sections: [
        { heading: "Overview", body: "<p>The year in <strong>short</strong></p>" },
        { heading: "Lessons", body: "<ul><li>Plan earlier</li></ul>" },
      ],
      effectiveness: "<p>Mostly effective</p>",
      improvements: "<p>Faster approvals</p>",
      issues: "<p>Late verifications</p>",
    });
    // References populated: public user objects in place of the ids, never a password or hash.
    expect(doc.participants.map((p: PublicUser) => p._id)).toEqual([alice._id, bob._id]);
    expect(doc.participants[0]).toMatchObject({
      name: "Alice Participant",
      email: alice.email,
      department: "operations",
    });
    expect(doc.actions).toEqual([
      {
        description: "Shorten the approval step",
        owner: expect.objectContaining({ _id: bob._id, name: "Bob Owner" }),
        due: "1991-03-31",
        status: "open",
      },
      {
        description: "Train the verifiers",
        owner: expect.objectContaining({ _id: alice._id, name: "Alice Participant" }),
        due: "1991-06-30",
        status: "in_progress",
      },
    ]);
    for (const person of [...doc.participants, doc.actions[0].owner, doc.createdBy, doc.updatedBy]) {
      expect(Object.keys(person).sort()).toEqual(
        ["_id", "access", "active", "department", "email", "name", "onboarded", "position", "rank", "role"].sort(),
      );
    }
    expect(doc.createdAt).toMatch(ISO_Z);
    expect(doc.updatedAt).toMatch(ISO_Z);
    expect(doc.moc_summary).toMatchObject({ total: 0, completed: 0, declined: 0, open: 0 });

    // GET ?id= returns the same document; the list holds it.
    expect(expectOk(await getOne(full, doc._id))).toEqual(doc);
    const listed = expectOk(await getAll(standard)).find((r: { _id: string }) => r._id === doc._id);
    expect(listed).toEqual(doc);
  });

  it("an action's status defaults to open; sections, participants, actions and the assessments may be left out", async () => {
    const doc = expectOk(
      await post(admin, {
        year: 1991,
        title: "  Minimal  ",
        actions: [{ description: "Follow up", owner: bob._id, due: "1992-01-15" }],
      }),
    );
    expect(doc).toMatchObject({
      title: "Minimal",
      sections: [],
      participants: [],
      effectiveness: "",
      improvements: "",
      issues: "",
      actions: [{ description: "Follow up", due: "1992-01-15", status: "open" }],
    });
  });

  it("the list is newest year first", async () => {
    const older = expectOk(await post(admin, reviewBody({ year: 1960, title: "Sixties" })));
    const newer = expectOk(await post(admin, reviewBody({ year: 2150, title: "Far future" })));
    const years = expectOk(await getAll(standard)).map((r: { year: number }) => r.year);
    expect(years).toEqual([...years].sort((a, b) => b - a));
    expect(years[0]).toBe(newer.year);
    expect(years.at(-1)).toBe(older.year);
  });
});

describe("validation", () => {
  const cases: [string, () => Record<string, unknown>, string[]][] = [
    ["a missing title", () => ({ ...reviewBody(), title: undefined }), ["title"]],
    ["a blank title", () => reviewBody({ title: "   " }), ["title"]],
    ["a title that is not text", () => reviewBody({ title: 42 }), ["title"]],
    ["a missing year", () => ({ ...reviewBody(), year: undefined }), ["year"]],
    ["a year as a string", () => reviewBody({ year: "2024" }), ["year"]],
    ["a fractional year", () => reviewBody({ year: 2024.5 }), ["year"]],
    ["a year before 1900", () => reviewBody({ year: 1899 }), ["year"]],
    ["a year after 2200", () => reviewBody({ year: 2201 }), ["year"]],
    ["a section without a heading", () => reviewBody({ sections: [{ body: "<p>x</p>" }] }), ["sections.0.heading"]],
    ["a section that is not an object", () => reviewBody({ sections: ["Overview"] }), ["sections.0"]],
    ["sections that are not a list", () => reviewBody({ sections: "Overview" }), ["sections"]],
    ["an impossible due date", () => reviewBody({ actions: [action({ due: "2025-02-30" })] }), ["actions.0.due"]],
    ["a due date in another format", () => reviewBody({ actions: [action({ due: "31/12/2025" })] }), ["actions.0.due"]],
    [
      "a due date with a time",
      () => reviewBody({ actions: [action({ due: "2025-12-31T10:00:00Z" })] }),
      ["actions.0.due"],
    ],
    ["a missing due date", () => reviewBody({ actions: [action({ due: undefined })] }), ["actions.0.due"]],
    ["an unknown action status", () => reviewBody({ actions: [action({ status: "closed" })] }), ["actions.0.status"]],
    [
      "an action without description",
      () => reviewBody({ actions: [action({ description: "" })] }),
      ["actions.0.description"],
    ],
    ["an action without owner", () => reviewBody({ actions: [action({ owner: undefined })] }), ["actions.0.owner"]],
    ["an owner that is not a UUID", () => reviewBody({ actions: [action({ owner: "bob" })] }), ["actions.0.owner"]],
    ["a participant that is not a UUID", () => reviewBody({ participants: [alice._id, "nobody"] }), ["participants.1"]],
    ["a participant listed twice", () => reviewBody({ participants: [alice._id, alice._id] }), ["participants.1"]],
    ["participants that are not a list", () => reviewBody({ participants: alice._id }), ["participants"]],
    ["rich text that is not a string", () => reviewBody({ effectiveness: { html: "<p>x</p>" } }), ["effectiveness"]],
    [
      "a summary whose parts do not add up",
      () => reviewBody({ moc_summary: { total: 5, completed: 1, declined: 1, open: 1, by_department: {} } }),
      ["moc_summary.total"],
    ],
    [
      "a summary with a negative count",
      () => reviewBody({ moc_summary: { total: 0, completed: -1, declined: 0, open: 1, by_department: {} } }),
      ["moc_summary.completed"],
    ],
    ["a summary that is not an object", () => reviewBody({ moc_summary: 12 }), ["moc_summary"]],
  ];

  function action(overrides: Record<string, unknown>) {
    return { description: "Do it", owner: bob._id, due: "2025-12-31", status: "open", ...overrides };
  }

  it.each(cases)("POST with %s is 400 with the path, and writes nothing", async (_name, body, paths) => {
    const res = await unchanged(() => post(admin, body()));
    expectError(res, 400, paths);
    expect(res.body.message).toMatch(/not valid/);
  });

  // On PUT a field left out is kept (a merge), so only the cases that send a bad value apply.
  const sent = cases.filter(([name]) => !name.startsWith("a missing year") && !name.startsWith("a missing title"));
  it.each(sent)("PUT with %s is 400 with the path, and changes nothing", async (_name, body, paths) => {
    const doc = expectOk(await post(admin, reviewBody({ title: "Stays as it is" })));
    expectError(await unchanged(() => put(admin, doc._id, body())), 400, paths);
  });

  it("unknown people are 400 with each offending path; nothing is written", async () => {
    const ghost = randomUUID();
    const res = await unchanged(() =>
      post(
        hseq,
        reviewBody({
          participants: [alice._id, ghost],
          actions: [
            { description: "Known owner", owner: bob._id, due: "2025-01-01" },
            { description: "Unknown owner", owner: randomUUID(), due: "2025-01-01" },
          ],
        }),
      ),
    );
    expectError(res, 400, ["participants.1", "actions.1.owner"]);
    expect(res.body.issues).toHaveLength(2);
    expect(res.body.issues[0].message).toBe("No user with this id");
  });

  it("a deactivated person cannot be newly named, but one already on the review stays allowed", async () => {
    const leaver = await makeUser({ name: "Lee Leaver" });
    const doc = expectOk(
      await post(
        admin,
        reviewBody({
          participants: [leaver._id],
          actions: [{ description: "x", owner: leaver._id, due: "2020-01-01" }],
        }),
      ),
    );
    await getDb().update(users).set({ active: false }).where(eq(users.id, leaver._id));

    const kept = expectOk(
      await put(
        admin,
        doc._id,
        reviewBody({
          participants: [leaver._id],
          actions: [{ description: "y", owner: leaver._id, due: "2020-01-01" }],
        }),
      ),
    );
    expect(kept.participants[0]).toMatchObject({ _id: leaver._id, active: false });

    expectError(await unchanged(() => post(admin, reviewBody({ participants: [alice._id, leaver._id] }))), 400, [
      "participants.1",
    ]);
    const other = expectOk(await post(admin, reviewBody()));
    const refused = await unchanged(() =>
      put(admin, other._id, reviewBody({ actions: [{ description: "z", owner: leaver._id, due: "2020-01-01" }] })),
    );
    expectError(refused, 400, ["actions.0.owner"]);
    expect(refused.body.issues[0].message).toBe("This user is deactivated");
  });

  it("ids in the query must be UUIDs (400), PUT needs one, and unknown ids are 404", async () => {
    const doc = expectOk(await post(admin, reviewBody()));
    expectError(await getOne(standard, "not-a-uuid"), 400, ["id"]);
    expectError(await getOne(standard, `${doc._id}x`), 400, ["id"]);
    expectError(await unchanged(() => put(admin, "12345", reviewBody())), 400, ["id"]);
    expectError(await unchanged(() => as(admin, { method: "PUT", body: reviewBody() })), 400, ["id"]);
    expectError(await getOne(standard, randomUUID()), 404);
    expectError(await unchanged(() => put(admin, randomUUID(), reviewBody())), 404);
  });

  it("malformed, empty, non-object and oversized bodies are 400 and 413; other methods 405", async () => {
    expectError(await unchanged(() => post(admin, "{ not json")), 400);
    expectError(await unchanged(() => post(admin, "")), 400);
    expectError(await unchanged(() => post(admin, [reviewBody()])), 400);
    expectError(await unchanged(() => post(admin, "null")), 400);
    const doc = expectOk(await post(admin, reviewBody()));
    expectError(await unchanged(() => put(admin, doc._id, "{ not json")), 400);

    const huge = reviewBody({ sections: [{ heading: "Big", body: `<p>${"x".repeat(1024 * 1024)}</p>` }] });
    expectError(await unchanged(() => post(admin, huge)), 413);
    expectError(await unchanged(() => put(admin, doc._id, huge)), 413);
    // A body under 1 MiB but over the rich-text limit is a 400 with the path.
    const long = reviewBody({ issues: `<p>${"y".repeat(200_000)}</p>` });
    expectError(await unchanged(() => post(admin, long)), 400, ["issues"]);

    const res = await as(admin, { method: "DELETE", query: { id: doc._id } });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, POST, PUT");
  });
});

describe("rich text", () => {
  it("section bodies, effectiveness, improvements and issues are sanitised on create and on update", async () => {
    const dirty = (text: string) =>
      `<p onclick="steal()">${text} <strong>kept</strong> <a href="javascript:alert(1)">bad link</a> <a href="https://example.com">good link</a></p><script>alert(1)</script><img src=x onerror="alert(2)"><style>p{}</style>`;
    const check = (html: string, text: string) => {
      expect(html).toContain(text);
      expect(html).toContain("<strong>kept</strong>");
      expect(html).toContain('href="https://example.com"');
      expect(html).not.toMatch(/script|onclick|onerror|javascript:|<img|<style|alert/i);
    };
    const body = (tag: string) =>
      reviewBody({
        sections: [{ heading: "Safe <b>heading</b>", body: dirty(`section ${tag}`) }],
        effectiveness: dirty(`effectiveness ${tag}`),
        improvements: dirty(`improvements ${tag}`),
        issues: dirty(`issues ${tag}`),
      });
    const created = expectOk(await post(admin, body("one")));
    check(created.sections[0].body, "section one");
    check(created.effectiveness, "effectiveness one");
    check(created.improvements, "improvements one");
    check(created.issues, "issues one");
    // Plain-text fields are stored as written (pages render them as text, never as HTML).
    expect(created.sections[0].heading).toBe("Safe <b>heading</b>");

    const updated = expectOk(await put(admin, created._id, body("two")));
    check(updated.sections[0].body, "section two");
    check(updated.effectiveness, "effectiveness two");
    check(updated.improvements, "improvements two");
    check(updated.issues, "issues two");
    const [row] = await getDb().select().from(yearEndReviews).where(eq(yearEndReviews.id, created._id));
    check(row!.issues, "issues two");
    check(row!.sections[0]!.body, "section two");
  });
});

describe("the MOC summary", () => {
  it("counts the year's MOCs by outcome, status and department; other years and deleted MOCs are left out", async () => {
    const YEAR = 2011;
    const fleetOriginator = await makeUser({ name: "Flo Fleet", department: "fleet" });
    const inYear = [
      { at: "2011-01-01T00:00:00Z", status: "a", department: "engineering" }, // first instant of the year
      { at: "2011-02-10T09:00:00Z", status: "b", department: "engineering" },
      { at: "2011-03-10T09:00:00Z", status: "c", department: "operations" },
      { at: "2011-04-10T09:00:00Z", status: "d", department: "operations" },
      { at: "2011-05-10T09:00:00Z", status: "e", department: "hseq" },
      { at: "2011-06-10T09:00:00Z", status: "f", department: "hseq" }, // in verification, not closed
      { at: "2011-07-10T09:00:00Z", status: "f", completed: true, department: "engineering" },
      { at: "2011-08-10T09:00:00Z", status: "f", completed: true, department: "fleet" },
      { at: "2011-09-10T09:00:00Z", status: "f", completed: true, department: "operations" },
      { at: "2011-10-10T09:00:00Z", status: "decline", department: "engineering" },
      { at: "2011-11-10T09:00:00Z", status: "decline", department: "fleet" },
      // No Part A form: the originator's department counts.
      { at: "2011-12-31T23:59:59.999Z", status: "b", department: null, originator: fleetOriginator },
    ];
    const leftOut = [
      { at: "2010-12-31T23:59:59.999Z", status: "b", department: "engineering" }, // previous year
      { at: "2012-01-01T00:00:00Z", status: "f", completed: true, department: "hseq" }, // next year
      { at: "2011-06-01T12:00:00Z", status: "c", department: "hseq", deleted: true }, // deleted
      { at: "2011-06-02T12:00:00Z", status: "f", completed: true, department: "fleet", deleted: true }, // deleted
    ];
    for (const m of [...inYear, ...leftOut]) await insertMoc(m);

    const doc = expectOk(await post(hseq, reviewBody({ year: YEAR })));
    const before = Date.now();
    expect(doc.moc_summary).toEqual({
      total: 12,
      completed: 3,
      declined: 2,
      open: 7,
      by_department: { engineering: 4, operations: 3, hseq: 2, fleet: 3 },
      by_status: { a: 1, b: 2, c: 1, d: 1, e: 1, f: 1, completed: 3, decline: 2 },
      computed_at: expect.stringMatching(ISO_Z),
    });
    expect(Math.abs(Date.parse(doc.moc_summary.computed_at) - before)).toBeLessThan(60_000);
    const statusTotal = Object.values(doc.moc_summary.by_status as Record<string, number>).reduce((a, b) => a + b);
    expect(statusTotal).toBe(doc.moc_summary.total);

    // The neighbouring years see their own MOCs only.
    expect(expectOk(await post(hseq, reviewBody({ year: 2010 }))).moc_summary).toMatchObject({
      total: 1,
      open: 1,
      by_department: { engineering: 1, operations: 0, hseq: 0, fleet: 0 },
    });
    expect(expectOk(await post(hseq, reviewBody({ year: 2012 }))).moc_summary).toMatchObject({
      total: 1,
      completed: 1,
      by_status: expect.objectContaining({ completed: 1, f: 0 }),
    });
    // A year without MOCs: zeros for every department and status.
    expect(expectOk(await post(hseq, reviewBody({ year: 1905 }))).moc_summary).toEqual({
      total: 0,
      completed: 0,
      declined: 0,
      open: 0,
      by_department: { engineering: 0, operations: 0, fleet: 0, hseq: 0 },
      by_status: { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, completed: 0, decline: 0 },
      computed_at: expect.stringMatching(ISO_Z),
    });
  });

  it("a summary in the body is stored as given (no counting)", async () => {
    await insertMoc({ at: "2013-05-05T00:00:00Z", status: "b" });
    const given = { total: 40, completed: 30, declined: 4, open: 6, by_department: { engineering: 25, marine: 15 } };
    const doc = expectOk(await post(admin, reviewBody({ year: 2013, moc_summary: given })));
    expect(doc.moc_summary).toEqual({ ...given, computed_at: null });
    expect(expectOk(await getOne(standard, doc._id)).moc_summary).toEqual({ ...given, computed_at: null });
  });
});

describe("PUT merges: the fields sent change, the others are kept", () => {
  it("{ year, title } changes the title only; the summary is kept; updatedBy/updatedAt move and createdAt stays", async () => {
    const YEAR = 2014;
    await insertMoc({ at: "2014-03-01T00:00:00Z", status: "b", department: "fleet" });
    const created = expectOk(await post(admin, reviewBody({ year: YEAR })));
    expect(created.moc_summary.total).toBe(1);

    // Another MOC of that year arrives after the review was written: the snapshot stays.
    await insertMoc({ at: "2014-09-01T00:00:00Z", status: "decline", department: "operations" });
    const updated = expectOk(await put(hseq, created._id, { year: YEAR, title: "Only the title" }));
    const { title: _t, updatedAt: _u, updatedBy: _b, ...kept } = created;
    expect(updated).toEqual({
      ...kept,
      title: "Only the title",
      updatedAt: updated.updatedAt,
      updatedBy: updated.updatedBy,
    });
    expect(updated.updatedBy._id).toBe(hseq._id);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(expectOk(await getOne(standard, created._id))).toEqual(updated);

    // A list sent replaces the stored list as a whole; an empty one empties it.
    const emptied = expectOk(await put(hseq, created._id, { sections: [], actions: [] }));
    expect(emptied).toMatchObject({
      sections: [],
      actions: [],
      participants: created.participants,
      title: "Only the title",
    });

    // null counts the year's MOCs again.
    const recounted = expectOk(await put(hseq, created._id, { moc_summary: null }));
    expect(recounted.moc_summary).toMatchObject({ total: 2, declined: 1, open: 1 });
    expect(recounted.moc_summary.by_department).toMatchObject({ fleet: 1, operations: 1 });

    // A body with nothing to change is refused; so is a field sent as null that cannot be empty.
    expectError(await unchanged(() => put(hseq, created._id, {})), 400);
    expectError(await unchanged(() => put(hseq, created._id, { title: null })), 400, ["title"]);
  });

  it("a document read with GET can be sent back as it is: nothing changes but updatedAt", async () => {
    await insertMoc({ at: "2015-03-01T00:00:00Z", status: "c" });
    const created = expectOk(await post(admin, reviewBody({ year: 2015 })));
    const read = expectOk(await getOne(admin, created._id));
    // A MOC added since then does not change a summary that is sent back.
    await insertMoc({ at: "2015-04-01T00:00:00Z", status: "c" });
    const again = expectOk(await put(admin, created._id, read));
    const { updatedAt: _a, ...rest } = again;
    const { updatedAt: _b, ...expected } = read;
    expect(rest).toEqual(expected);
    expect(again.moc_summary.total).toBe(1);
  });

  it("a PUT that changes the year counts the new year's MOCs; a given summary is stored as given", async () => {
    await insertMoc({ at: "2016-03-01T00:00:00Z", status: "b" });
    await insertMoc({ at: "2017-03-01T00:00:00Z", status: "b" });
    await insertMoc({ at: "2017-04-01T00:00:00Z", status: "f", completed: true });
    const doc = expectOk(await post(admin, reviewBody({ year: 2016 })));
    expect(doc.moc_summary.total).toBe(1);
    const moved = expectOk(await put(admin, doc._id, reviewBody({ year: 2017 })));
    expect(moved.moc_summary).toMatchObject({ total: 2, completed: 1, open: 1 });
    const given = { total: 3, completed: 3, declined: 0, open: 0, by_department: { fleet: 3 } };
    const manual = expectOk(await put(admin, doc._id, reviewBody({ year: 2017, moc_summary: given })));
    expect(manual.moc_summary).toEqual({ ...given, computed_at: null });
    // Left out with the year unchanged, the stored summary stays; null asks for a count.
    expect(expectOk(await put(admin, doc._id, { title: "Renamed" })).moc_summary).toEqual(manual.moc_summary);
    const counted = expectOk(await put(admin, doc._id, reviewBody({ year: 2017, moc_summary: null })));
    expect(counted.moc_summary).toMatchObject({
      total: 2,
      completed: 1,
      open: 1,
      computed_at: expect.stringMatching(ISO_Z),
    });
  });

  it("a refused PUT leaves the stored review exactly as it was", async () => {
    const doc = expectOk(await post(admin, reviewBody()));
    const [before] = await getDb().select().from(yearEndReviews).where(eq(yearEndReviews.id, doc._id));
    await unchanged(() => put(admin, doc._id, reviewBody({ participants: [randomUUID()] })));
    await unchanged(() => put(standard, doc._id, reviewBody({ title: "Hijack" })));
    const [after] = await getDb().select().from(yearEndReviews).where(eq(yearEndReviews.id, doc._id));
    expect(after).toEqual(before);
  });
});

describe("list queries", () => {
  const counter: QueryCounter = { count: 0 };
  const holder = globalThis as { __cmQueryCounter?: QueryCounter };

  beforeAll(async () => {
    holder.__cmQueryCounter = counter;
    await closeDb();
  });
  afterAll(async () => {
    delete holder.__cmQueryCounter;
    await closeDb();
  });

  it("GET /api/year-end-review costs the same with 2 reviews as with 20, everyone populated", async () => {
    await getDb().execute(sql`delete from year_end_reviews`);
    const people = await Promise.all(Array.from({ length: 6 }, (_, i) => makeUser({ name: `Lister ${i}` })));
    const add = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const a = people[i % people.length]!;
        const b = people[(i + 1) % people.length]!;
        expectOk(
          await post(
            admin,
            reviewBody({
              year: 1950 + i,
              participants: [a._id, b._id],
              actions: [
                { description: "One", owner: a._id, due: "2000-01-01" },
                { description: "Two", owner: b._id, due: "2000-01-02" },
              ],
            }),
          ),
        );
      }
    };
    const measure = async () => {
      await tokenOf(standard);
      const start = counter.count;
      const data = expectOk(await getAll(standard));
      return { queries: counter.count - start, data };
    };

    await add(2);
    const small = await measure();
    expect(small.data).toHaveLength(2);

    await add(18);
    const large = await measure();
    expect(large.data).toHaveLength(20);
    expect(large.queries).toBe(small.queries);
    // The session, the reviews, the people.
    expect(large.queries).toBeLessThanOrEqual(3);
    for (const review of large.data) {
      expect(review.participants).toHaveLength(2);
      expect(review.participants.every((p: PublicUser) => typeof p.name === "string")).toBe(true);
      expect(review.actions.every((a: { owner: PublicUser }) => typeof a.owner?.name === "string")).toBe(true);
    }
  });
});

describe("people named in a review", () => {
  it("cannot be deleted (409, as for any record that names them); once no review names them they can", async () => {
    const [participant, owner] = await Promise.all([makeUser({ name: "Pia Named" }), makeUser({ name: "Otto Owner" })]);
    const doc = expectOk(
      await post(
        admin,
        reviewBody({
          participants: [participant!._id],
          actions: [{ description: "Follow up", owner: owner!._id, due: "1991-01-31", status: "open" }],
        }),
      ),
    );
    for (const person of [participant!, owner!]) {
      const res = await api(usersRoute, {
        method: "DELETE",
        path: "/api/users",
        body: { _id: person._id },
        token: await tokenOf(admin),
      });
      expect(res.status, res.text).toBe(409);
      expect(res.body.message).toMatch(/deactivate/);
    }
    expectOk(
      await as(admin, {
        method: "PUT",
        query: { id: doc._id },
        body: reviewBody({ participants: [], actions: [] }),
      }),
    );
    const res = await api(usersRoute, {
      method: "DELETE",
      path: "/api/users",
      body: { _id: owner!._id },
      token: await tokenOf(admin),
    });
    expect(res.status, res.text).toBe(200);
  });
});
