/**
 * Text a client sends that must be refused with a 400 and a message, never a 500 and never stored
 * (app/models/shared/text-rules.ts, docs/decisions/028-untrusted-text-and-sign-in-links.md): control
 * characters in a list's search, and bidirectional controls in people's names, file names and
 * titles.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { storeAttachment } from "~/models/records/attachments.server";
import * as mocsPage from "~/routes/mocs+/_index";
import * as pcrsPage from "~/routes/pcrs+/_index";
import * as archivePage from "~/routes/archive+/$kind._index";
import * as adminUsersPage from "~/routes/admin+/users";
import * as outboxPage from "~/routes/admin+/outbox";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as allPcrRoute from "~/routes/api+/allPcr";
import * as oldMocRoute from "~/routes/api+/oldMoc";
import * as userRoute from "~/routes/api+/user";
import * as usersRoute from "~/routes/api+/users";
import * as reviewRoute from "~/routes/api+/year-end-review";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { buildRequest, call, type CallOptions } from "../helpers/request";

let adminToken: string;
let userToken: string;

beforeAll(async () => {
  adminToken = await tokenFor((await makeAdmin())!);
  userToken = await tokenFor((await makeUser())!);
});

type PageModule = { loader: (args: never) => unknown };

/** A page loader's answer as a browser sees its status: a thrown `data(...)` is the error page. */
async function loadPage(route: PageModule, options: CallOptions & { params: Record<string, string> }) {
  try {
    await route.loader({ request: await buildRequest(options), params: options.params, context: {} } as never);
    return { status: 200, message: undefined };
  } catch (thrown) {
    const init = thrown as { init?: { status?: number }; data?: { message?: string } };
    if (thrown instanceof Response) return { status: thrown.status, message: undefined };
    if (init.init?.status) return { status: init.init.status, message: init.data?.message };
    throw thrown;
  }
}

const SEARCHES = ["\u0000", "ship\u0000", "a\u0001b", "line\nbreak", "tab\there", "\u007f", "c1\u0085"];

describe("a search with control characters (?q=%00 and the like)", () => {
  const pages: { name: string; route: PageModule; path: string; params: Record<string, string> }[] = [
    { name: "/mocs", route: mocsPage, path: "/mocs", params: {} },
    { name: "/pcrs", route: pcrsPage, path: "/pcrs", params: {} },
    { name: "/archive/mocs", route: archivePage, path: "/archive/mocs", params: { kind: "mocs" } },
    { name: "/archive/pcrs", route: archivePage, path: "/archive/pcrs", params: { kind: "pcrs" } },
  ];
  for (const page of pages) {
    it(`${page.name} answers 400 with a message`, async () => {
      for (const q of SEARCHES) {
        const res = await loadPage(page.route, {
          path: page.path,
          query: { q },
          token: userToken,
          cookie: true,
          params: page.params,
        });
        expect(res.status, JSON.stringify(q)).toBe(400);
        expect(res.message).toMatch(/Search text must not contain control characters/);
      }
      // An ordinary search still answers.
      const fine = await loadPage(page.route, {
        path: page.path,
        query: { q: "pump" },
        token: userToken,
        cookie: true,
        params: page.params,
      });
      expect(fine.status).toBe(200);
    });
  }

  const lists = [
    { name: "GET /api/getAllMoc?format=csv", route: getAllMocRoute, path: "/api/getAllMoc" },
    { name: "GET /api/allPcr?format=csv", route: allPcrRoute, path: "/api/allPcr" },
    { name: "GET /api/oldMoc?format=csv", route: oldMocRoute, path: "/api/oldMoc" },
  ];
  for (const list of lists) {
    it(`${list.name} answers 400 with the issue on q`, async () => {
      for (const q of SEARCHES) {
        const res = await call(list.route, { path: list.path, query: { format: "csv", q }, token: userToken });
        expect(res.status, JSON.stringify(q)).toBe(400);
        expect(res.body.issues).toEqual([{ path: "q", message: expect.stringMatching(/control characters/) }]);
      }
      const fine = await call(list.route, { path: list.path, query: { format: "csv", q: "pump" }, token: userToken });
      expect(fine.status).toBe(200);
    });
  }
});

describe("the other searches: the user directory and the admin outbox", () => {
  const variants: Record<string, string>[] = [{}, { format: "csv" }, { limit: "10" }];
  it("GET /api/users?search= with control characters answers 400 with the issue on search, as JSON, CSV or a page", async () => {
    for (const extra of variants) {
      for (const search of SEARCHES) {
        const res = await call(usersRoute, { path: "/api/users", query: { ...extra, search }, token: userToken });
        expect(res.status, JSON.stringify([extra, search])).toBe(400);
        expect(res.body.issues).toEqual([{ path: "search", message: expect.stringMatching(/control characters/) }]);
      }
      const fine = await call(usersRoute, {
        path: "/api/users",
        query: { ...extra, search: "olav" },
        token: userToken,
      });
      expect(fine.status).toBe(200);
    }
  });

  for (const page of [
    { name: "/admin/users?q=", route: adminUsersPage, path: "/admin/users", key: "q" },
    { name: "/admin/outbox?to=", route: outboxPage, path: "/admin/outbox", key: "to" },
  ]) {
    it(`${page.name} with control characters answers 400 with a message`, async () => {
      for (const text of SEARCHES) {
        const res = await loadPage(page.route, {
          path: page.path,
          query: { [page.key]: text },
          token: adminToken,
          cookie: true,
          params: {},
        });
        expect(res.status, JSON.stringify(text)).toBe(400);
        expect(res.message).toMatch(/Search text must not contain control characters/);
      }
      const fine = await loadPage(page.route, {
        path: page.path,
        query: { [page.key]: "olav" },
        token: adminToken,
        cookie: true,
        params: {},
      });
      expect(fine.status).toBe(200);
    });
  }
});

const OVERRIDE = "\u202e"; // RIGHT-TO-LEFT OVERRIDE
const BIDI = [
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u200e",
  "\u200f",
  "\u061c",
];

describe("bidirectional controls in names, file names and titles", () => {
  async function counts() {
    const [row] = await getDb().execute<Record<string, number>>(sql`select
      (select count(*)::int from users) as users, (select count(*)::int from year_end_reviews) as reviews,
      (select count(*)::int from legacy_mocs) as legacy, (select count(*)::int from attachments) as attachments`);
    return row;
  }

  it("a new person's name with any of them: 400 naming the field, nobody created", async () => {
    const before = await counts();
    for (const c of BIDI) {
      const res = await api(usersRoute, {
        method: "POST",
        path: "/api/users",
        token: adminToken,
        body: {
          name: `Petra${c}Nilsen`,
          email: `bidi-${c.codePointAt(0)}@example.com`,
          password: "long-enough-password",
          department: "fleet",
        },
      });
      expect(res.status, c.codePointAt(0)!.toString(16)).toBe(400);
      expect(res.body.issues).toEqual([{ path: "name", message: expect.stringMatching(/direction characters/) }]);
    }
    expect(await counts()).toEqual(before);
  });

  it("renaming oneself with one: 400, the name unchanged", async () => {
    const user = await makeUser({ name: "Olav Berg" });
    const res = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token: await tokenFor(user),
      body: { name: `Olav ${OVERRIDE}greB` },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: "name" });
    const [row] = await getDb().execute<{ name: string }>(sql`select name from users where id = ${user._id}`);
    expect(row!.name).toBe("Olav Berg");
  });

  it("a legacy record's title and a review's title: 400 on the field", async () => {
    const before = await counts();
    const legacy = await api(oldMocRoute, {
      method: "POST",
      path: "/api/oldMoc",
      token: adminToken,
      body: {
        serial_num: "1-1999",
        title: `Pump ${OVERRIDE}gnirps`,
        originator_name: "Ann",
        date_raised: "1999-01-01",
        status: "open",
      },
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body.issues).toEqual([{ path: "title", message: expect.stringMatching(/direction characters/) }]);
    const review = await api(reviewRoute, {
      method: "POST",
      path: "/api/year-end-review",
      token: adminToken,
      body: { year: 2026, title: `Review\u2066 2026` },
    });
    expect(review.status).toBe(400);
    expect(review.body.issues).toEqual([{ path: "title", message: expect.stringMatching(/direction characters/) }]);
    expect(await counts()).toEqual(before);
  });

  it("an uploaded file named `invoice\u202efdp.exe`: 400, nothing stored", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const before = await counts();
    async function* bytes() {
      yield new Uint8Array(Buffer.from("%PDF-1.4\n%%EOF\n"));
    }
    await expect(
      storeAttachment(cast.originator, { mocId: moc._id }, "file", {
        name: `invoice${OVERRIDE}fdp.pdf`,
        data: bytes(),
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/direction characters/) });
    expect(await counts()).toEqual(before);
  });

  it("right-to-left letters themselves are welcome", async () => {
    const res = await api(usersRoute, {
      method: "POST",
      path: "/api/users",
      token: adminToken,
      body: {
        name: "نورا الحربي",
        email: `rtl-${Date.now()}@example.com`,
        password: "long-enough-password",
        department: "fleet",
      },
    });
    expect(res.status).toBe(201);
  });
});
