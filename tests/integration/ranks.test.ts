/**
 * Ranks on board (issue 41): the list the migration seeds, admins' changes to it on /admin/ranks
 * (each in the settings chain; anyone else 403, changing nothing), a person's rank set and cleared
 * by the admin's user page and the API (only what is named changes, each change in the person's
 * trail; an unknown or deactivated rank 400), OIDC_GROUP_MAP's `rank`, and ranks in the crew list.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED_RANKS } from "#db/schema";
import * as ranksPage from "~/routes/admin+/ranks";
import * as userPage from "~/routes/admin+/users.$id";
import * as usersPage from "~/routes/admin+/users";
import * as usersRoute from "~/routes/api+/users";
import * as ranksRoute from "~/routes/api+/ranks";
import { historyOf } from "~/models/audit/audit.server";
import { accountForProvider } from "~/models/sign-in/oidc-users.server";
import { RANKS_RECORD } from "~/models/people/ranks.server";
import { addAssignment, createVessel } from "~/models/fleet/vessel.server";
import { vesselOverview } from "~/models/overview/vessel-page.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { expectError, issuePaths } from "../helpers/moc-flow";
import { page, postForm as post } from "../helpers/page";

let admin: PublicUser;
let crew: PublicUser;

const rankList = async () =>
  [
    ...(await getDb().execute<{ name: string; active: boolean }>(
      sql`select name, active from ranks order by sort, name`,
    )),
  ].map((r) => (r.active ? r.name : `${r.name} (inactive)`));
const rankOf = async (id: string) =>
  (await getDb().execute<{ rank: string | null }>(sql`select rank from users where id = ${id}`))[0]!.rank;
const settingsEntries = async () => (await historyOf("settings", RANKS_RECORD)).map((h) => [h.action, h.from, h.to]);

const changeRanks = (who: PublicUser, form: Record<string, string>) => post(ranksPage, who, "/admin/ranks", form);

beforeAll(async () => {
  admin = await makeAdmin({ name: "Ada Admin" });
  crew = await makeUser({ name: "Bo Bosun", department: "fleet" });
});
afterAll(async () => closeDb());

describe("the list of ranks", () => {
  it("is seeded by the migration in order, every rank offered, and users.rank must name one", async () => {
    expect(await rankList()).toEqual([...SEEDED_RANKS]);
    expect(SEEDED_RANKS).toHaveLength(10);
    await expect(getDb().execute(sql`update users set rank = 'Captain Nemo' where id = ${crew._id}`)).rejects.toThrow();
    expect(await rankOf(crew._id)).toBeNull();
    const res = await api(ranksRoute, { path: "/api/ranks", token: await tokenFor(crew) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual([...SEEDED_RANKS]);
    expect(res.body.data[0]).toEqual({ name: "Master", sort: expect.any(Number), active: true });
  });

  it("admins add, rename, move and deactivate ranks on /admin/ranks, each an entry in the settings chain", async () => {
    await getDb().execute(sql`update users set rank = 'Bosun' where id = ${crew._id}`);
    const list = await page(ranksPage, admin, { path: "/admin/ranks" });
    expect(list.status).toBe(200);
    expect(list.body.ranks.find((r: { name: string }) => r.name === "Bosun")).toMatchObject({ holders: 1 });

    expect((await changeRanks(admin, { intent: "add", name: "  Fourth Engineer " })).status).toBe(302);
    expect((await rankList()).at(-1)).toBe("Fourth Engineer");

    expect((await changeRanks(admin, { intent: "rename", rank: "Bosun", name: "Boatswain" })).status).toBe(302);
    // The holder's rank follows the rename (on update cascade).
    expect(await rankOf(crew._id)).toBe("Boatswain");

    expect((await changeRanks(admin, { intent: "up", rank: "Boatswain" })).status).toBe(302);
    const order = await rankList();
    expect(order.indexOf("Boatswain")).toBe(order.indexOf("Electro-Technical Officer") - 1);

    expect((await changeRanks(admin, { intent: "deactivate", rank: "Cook" })).status).toBe(302);
    expect(await rankList()).toContain("Cook (inactive)");

    expect(await settingsEntries()).toEqual([
      ["Added a rank", null, "Fourth Engineer"],
      ["Renamed a rank", "Bosun", "Boatswain"],
      ["Moved a rank up", null, "Boatswain, now above Electro-Technical Officer"],
      ["Deactivated a rank", null, "Cook"],
    ]);
  });

  it("refuses a duplicate or empty name with a 400 on the field, changing nothing", async () => {
    const before = [await rankList(), await settingsEntries()];
    const duplicate = await changeRanks(admin, { intent: "rename", rank: "Master", name: "chief officer" });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toMatchObject({ form: "Master", message: expect.stringMatching(/already a rank/) });
    const empty = await changeRanks(admin, { intent: "add", name: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ form: "add", message: "Enter the rank's name" });
    expect([await rankList(), await settingsEntries()]).toEqual(before);
  });

  it("is the admins' only: anyone else gets 403 on the page and its action, and nothing changes", async () => {
    const before = [await rankList(), await settingsEntries()];
    const hseq = await makeUser({ department: "hseq", access: "full" });
    expect((await page(ranksPage, hseq, { path: "/admin/ranks" })).status).toBe(403);
    expect((await changeRanks(hseq, { intent: "add", name: "Pirate" })).status).toBe(403);
    expect((await changeRanks(crew, { intent: "deactivate", rank: "Master" })).status).toBe(403);
    expect([await rankList(), await settingsEntries()]).toEqual(before);
  });
});

describe("a person's rank", () => {
  const editForm = (user: PublicUser, rank: string): Record<string, string> => ({
    name: user.name,
    email: user.email,
    department: user.department,
    role: user.role,
    access: user.access,
    position: user.position ?? "",
    rank,
    active: "on",
  });

  it("is set and cleared on the admin's user page, each change in the person's trail", async () => {
    const person = await makeUser({ name: "Ola Officer", department: "fleet" });
    const form = await page(userPage, admin, { path: `/admin/users/${person._id}`, params: { id: person._id } });
    expect(form.status).toBe(200);
    // Offered: the active ranks only (Cook was deactivated above).
    const offered = form.body.ranks.map((o: { value: string }) => o.value);
    expect(offered).toContain("Chief Officer");
    expect(offered).not.toContain("Cook");

    const set = await post(userPage, admin, `/admin/users/${person._id}`, editForm(person, "Chief Officer"), {
      id: person._id,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(302);
    expect(await rankOf(person._id)).toBe("Chief Officer");
    const cleared = await post(userPage, admin, `/admin/users/${person._id}`, editForm(person, ""), {
      id: person._id,
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(302);
    expect(await rankOf(person._id)).toBeNull();
    const trail = (await historyOf("user", person._id)).filter((h) => h.action === "Changed rank");
    expect(trail.map((h) => [h.from, h.to, h.actorId])).toEqual([
      [null, "Chief Officer", admin._id],
      ["Chief Officer", null, admin._id],
    ]);
  });

  it("is refused on the page when not offered, with the message on the rank field", async () => {
    const person = await makeUser({ department: "fleet" });
    const res = await post(userPage, admin, `/admin/users/${person._id}`, editForm(person, "Cook"), {
      id: person._id,
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/Rank must be one of/);
    expect(await rankOf(person._id)).toBeNull();
  });

  it("is set on the create form", async () => {
    const res = await post(usersPage, admin, "/admin/users", {
      intent: "create",
      name: "Tia Third",
      email: "tia.third@example.com",
      password: "a-first-password",
      department: "fleet",
      role: "user",
      access: "standard",
      rank: "Third Officer",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(302);
    const [row] = await getDb().execute<{ rank: string | null }>(
      sql`select rank from users where email = 'tia.third@example.com'`,
    );
    expect(row?.rank).toBe("Third Officer");
  });

  it("is set, kept and cleared through the API, only what the body names changing; an unknown rank is 400", async () => {
    const token = await tokenFor(admin);
    const created = await api(usersRoute, {
      method: "POST",
      path: "/api/users",
      token,
      body: {
        name: "Cai Chief",
        email: "cai.chief@example.com",
        password: "a-first-password",
        department: "fleet",
        rank: "Chief Engineer",
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ rank: "Chief Engineer", position: null });
    const id = created.body.data._id as string;

    // A PUT that does not name the rank keeps it.
    const renamed = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token,
      body: { _id: id, name: "Cai C." },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: "Cai C.", rank: "Chief Engineer" });

    const unknown = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token,
      body: { _id: id, rank: "Captain Nemo", name: "Not Applied" },
    });
    expectError(unknown, 400);
    expect(issuePaths(unknown)).toEqual(["rank"]);
    const deactivated = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token,
      body: { _id: id, rank: "Cook" },
    });
    expectError(deactivated, 400);
    const wrongType = await api(usersRoute, { method: "PUT", path: "/api/users", token, body: { _id: id, rank: 7 } });
    expectError(wrongType, 400);
    expect(await rankOf(id)).toBe("Chief Engineer");

    const cleared = await api(usersRoute, { method: "PUT", path: "/api/users", token, body: { _id: id, rank: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.data.rank).toBeNull();
    const trail = (await historyOf("user", id)).filter((h) => h.action === "Changed rank");
    expect(trail.map((h) => [h.from, h.to])).toEqual([
      [null, "Chief Engineer"],
      ["Chief Engineer", null],
    ]);

    // The directory carries the rank of each person.
    const list = await api(usersRoute, { path: "/api/users", token });
    expect(list.body.data.find((u: PublicUser) => u._id === crew._id)).toMatchObject({ rank: "Boatswain" });
    // Nobody else sets a rank.
    const own = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: await tokenFor(crew),
      body: { _id: crew._id, rank: "Master" },
    });
    expect(own.status).toBe(403);
    expect(await rankOf(crew._id)).toBe("Boatswain");
  });
});

describe("OIDC_GROUP_MAP's rank", () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
    resetEnv();
  });
  const withMap = (map: unknown) => {
    process.env.OIDC_GROUP_MAP = JSON.stringify(map);
    resetEnv();
  };
  const claims = (email: string, groups: string[]) => ({
    iss: "https://id.example.com",
    sub: `sub-${email}`,
    email,
    email_verified: true,
    groups,
  });

  it("is applied at each sign-in, each change in the person's trail; a map naming no rank leaves it", async () => {
    const person = await makeUser({ email: "mia.master@example.com", department: "fleet" });
    withMap({ masters: { rank: "Master" }, engineers: { rank: "Second Engineer", department: "engineering" } });
    expect((await accountForProvider(claims(person.email, ["masters"]))).rank).toBe("Master");
    expect(await rankOf(person._id)).toBe("Master");
    // In no rank group: no rank.
    expect((await accountForProvider(claims(person.email, []))).rank).toBeNull();
    const trail = (await historyOf("user", person._id)).filter((h) => h.action === "Changed rank");
    expect(trail.map((h) => [h.from, h.to, h.actorId, h.comment])).toEqual([
      [null, "Master", null, "From the identity provider's groups at sign-in"],
      ["Master", null, null, "From the identity provider's groups at sign-in"],
    ]);

    // A map of roles alone leaves the rank an admin set.
    await getDb().execute(sql`update users set rank = 'Third Engineer' where id = ${person._id}`);
    withMap({ "moc-admins": { role: "admin" } });
    expect((await accountForProvider(claims(person.email, []))).rank).toBe("Third Engineer");

    // A rank the list does not have is left out rather than refusing the sign-in.
    withMap({ masters: { rank: "Grand Admiral" } });
    expect((await accountForProvider(claims(person.email, ["masters"]))).rank).toBe("Third Engineer");
  });
});

describe("ranks in the crew list", () => {
  it("the vessel page lists who is on board today with their ranks, in the ranks' order", async () => {
    const vessel = await createVessel(admin, { name: "MV Rank Order", imo: "9321483" });
    const master = await makeUser({ name: "Zed Master" });
    const cook = await makeUser({ name: "Abe Nobody" });
    await getDb().execute(sql`update users set rank = 'Master' where id = ${master._id}`);
    const today = new Date().toISOString().slice(0, 10);
    for (const who of [crew, master, cook]) {
      await addAssignment(admin, { vessel_id: vessel._id, user_id: who._id, from: today });
    }
    // Someone who left yesterday is not on board.
    const ashore = await makeUser({ name: "Al Ashore" });
    await addAssignment(admin, { vessel_id: vessel._id, user_id: ashore._id, from: "2020-01-01", to: "2020-02-01" });

    const overview = await vesselOverview(admin, vessel._id);
    expect(overview.crew?.rows.map((p) => [p.name, p.rank])).toEqual([
      ["Zed Master", "Master"],
      ["Bo Bosun", "Boatswain"],
      ["Abe Nobody", null],
    ]);
    expect(overview.crew?.total).toBe(3);
    // The crew sees its own list; a standard user ashore does not.
    expect((await vesselOverview(cook, vessel._id)).crew?.total).toBe(3);
    expect((await vesselOverview(ashore, vessel._id)).crew).toBeNull();
  });
});
