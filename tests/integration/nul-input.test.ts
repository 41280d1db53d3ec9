/**
 * PostgreSQL cannot store a NUL character in text or JSON. Whatever endpoint it arrives at, the
 * client gets a 400 that says so, and nothing is written (never a 500).
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { CONTROL_CHARACTERS } from "~/models/records/search.constants";
import { SEARCH_CONTROL_MESSAGE } from "~/models/shared/text-rules";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as searchApi from "~/routes/api+/search";
import * as pcrRoute from "~/routes/api+/pcr";
import * as usersRoute from "~/routes/api+/users";
import * as reviewRoute from "~/routes/api+/year-end-review";
import * as searchPage from "~/routes/search";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { newMocBody } from "../helpers/moc";
import { buildRequest } from "../helpers/request";

const NUL = "before\u0000after";
let adminToken: string;
let implementer: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  adminToken = await tokenFor((await makeAdmin())!);
  implementer = (await makeUser({ name: "Nina Nul" }))!;
});

async function counts() {
  const [row] = await getDb().execute<Record<string, number>>(sql`select
    (select count(*)::int from users) as users, (select count(*)::int from mocs) as mocs,
    (select count(*)::int from moc_forms) as forms, (select count(*)::int from pcrs) as pcrs,
    (select count(*)::int from year_end_reviews) as reviews`);
  return row;
}

const CASES = [
  {
    name: "POST /api/users (text column)",
    send: () =>
      api(usersRoute, {
        method: "POST",
        path: "/api/users",
        token: adminToken,
        body: { name: NUL, email: "nul@example.com", password: "long-enough-password", department: "fleet" },
      }),
  },
  {
    name: "POST /api/newmoc (a form value in jsonb)",
    send: () =>
      api(newmocRoute, {
        method: "POST",
        path: "/api/newmoc",
        token: adminToken,
        body: newMocBody(implementer, { "reason-for-change": { value: NUL } }),
      }),
  },
  {
    name: "POST /api/pcr (rich text in jsonb)",
    send: () =>
      api(pcrRoute, {
        method: "POST",
        path: "/api/pcr",
        token: adminToken,
        body: {
          form: {
            "new-suggestion": true,
            "manual-procedure": "<p>Manual</p>",
            "suggestion-details": `<p>${NUL}</p>`,
            "reason-for-change": "<p>Reason</p>",
          },
          affectedParties: [],
        },
      }),
  },
  {
    name: "POST /api/year-end-review (title)",
    send: () =>
      api(reviewRoute, {
        method: "POST",
        path: "/api/year-end-review",
        token: adminToken,
        body: { year: 2026, title: NUL },
      }),
  },
];

describe("a NUL character in the input", () => {
  it.each(CASES)("$name: 400 with a message, nothing written", async ({ send }) => {
    const before = await counts();
    const res = await send();
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/NUL|not valid|invalid/i);
    expect(await counts()).toEqual(before);
  });
});

describe("a NUL or another control character in a search", () => {
  const QUERIES = [NUL, "\u0000", "pump\u0007", "pump\ttest", "line\nbreak", "c1\u0085"];

  it.each(QUERIES)("GET /api/search?q=%j: 400 naming q, with the message", async (q) => {
    const res = await api(searchApi, { path: "/api/search", query: { q }, token: adminToken });
    expect(res.status, res.text).toBe(400);
    expect(res.body.issues).toEqual([{ path: "q", message: SEARCH_CONTROL_MESSAGE }]);
  });

  it.each(QUERIES)("the /search page with q=%j: the form again with the message, as a 400", async (q) => {
    const request = await buildRequest({ path: "/search", query: { q }, token: adminToken, cookie: true });
    const answer = (await searchPage.loader({ request, params: {}, context: {} })) as unknown as {
      data: { q: string; error: string; results: unknown };
      init: { status: number };
    };
    expect(answer.init?.status).toBe(400);
    expect(answer.data.error).toBe(SEARCH_CONTROL_MESSAGE);
    expect(answer.data.results).toBeNull();
    // Shown back in the search box without its control characters.
    expect(answer.data.q).not.toMatch(new RegExp(CONTROL_CHARACTERS.source));
  });
});
