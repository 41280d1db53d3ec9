/**
 * Deleting without losing (issue 27 item 4, docs/decisions/034-approved-content-and-deleting.md):
 * the originator deletes a MOC only before anyone else has decided on it; afterwards an admin,
 * with a reason (400 without); a completed MOC never (409). Admins list the deleted MOCs with
 * who, when and why, and restore them; both are entries of the MOC's hash-chained trail.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as restoreMocRoute from "~/routes/api+/restoreMoc";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as deletedPage from "~/routes/mocs+/deleted";
import { listDeletedMocs } from "~/models/moc/moc.server";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { type Cast } from "../helpers/moc";
import { expectError, makeCast, mocAt, mocSnapshot, post, tokenOf, type Doc, type Stage } from "../helpers/moc-flow";
import { api } from "../helpers/api";
import { buildRequest } from "../helpers/request";

let cast: Cast;
let admin: PublicUser;
let hseqMember: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  [admin, hseqMember] = await Promise.all([
    makeAdmin({ name: "Ada Admin", department: "operations" }),
    makeUser({ name: "Hedda Hseq-Dept", department: "hseq" }),
  ]);
});

const deleteMoc = async (who: { _id: string } | null, id: string, reason?: string) =>
  api(deleteMocRoute, {
    method: "DELETE",
    path: "/api/deleteMoC",
    query: reason === undefined ? { id } : { id, reason },
    token: who ? await tokenOf(who) : undefined,
  });
const restore = (who: { _id: string } | null, body: unknown) => post(restoreMocRoute, "/api/restoreMoc", who, { body });
const isDeleted = async (id: string) => {
  const [row] = await getDb().execute<{ is_deleted: boolean }>(sql`select is_deleted from mocs where id = ${id}`);
  return row!.is_deleted;
};
const lastLog = async (id: string) => {
  const [row] = await getDb().execute<{ action: string; user_id: string; comment: string | null }>(
    sql`select action, user_id, comment from moc_logs where moc_id = ${id} order by seq desc limit 1`,
  );
  return row!;
};

describe("the originator deletes before anyone else has decided", () => {
  it.each(["a", "b"] as const)("at %s: 200, isDeleted true, a Deleted entry in the trail", async (stage) => {
    const moc = await mocAt(stage, cast);
    const res = await deleteMoc(cast.originator, moc._id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { _id: moc._id } });
    expect(await isDeleted(moc._id)).toBe(true);
    expect(await lastLog(moc._id)).toMatchObject({ action: "Deleted", user_id: cast.originator._id, comment: null });
  });

  it.each(["b-returned", "c", "d", "e", "decline-b", "b-deviation"] as const satisfies readonly Stage[])(
    "at %s someone else has decided: the originator gets 403 and nothing changes",
    async (stage) => {
      const moc = await mocAt(stage, cast);
      const before = await mocSnapshot(moc._id);
      expectError(await deleteMoc(cast.originator, moc._id, "Changed my mind"), 403);
      expect(await mocSnapshot(moc._id)).toEqual(before);
    },
  );

  it("nobody else deletes, even before a decision: 403 (401 anonymous)", async () => {
    const moc = await mocAt("b", cast);
    for (const who of [cast.implementer, hseqMember]) expectError(await deleteMoc(who, moc._id), 403);
    expectError(await deleteMoc(null, moc._id), 401);
    expect(await isDeleted(moc._id)).toBe(false);
  });
});

describe("an admin deletes afterwards, with a reason", () => {
  let moc: Doc;
  beforeAll(async () => {
    moc = await mocAt("d", cast);
  });

  it("without a reason (or a blank one): 400 naming `reason`, nothing changes", async () => {
    const before = await mocSnapshot(moc._id);
    for (const reason of [undefined, "", "   "]) {
      const res = await deleteMoc(admin, moc._id, reason);
      expectError(res, 400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["reason"]);
    }
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("with one: 200, and the trail keeps who and why", async () => {
    const res = await deleteMoc(admin, moc._id, "Raised twice; see MOC 12");
    expect(res.body).toEqual({ status: 200, data: { _id: moc._id } });
    expect(await isDeleted(moc._id)).toBe(true);
    expect(await lastLog(moc._id)).toMatchObject({
      action: "Deleted",
      user_id: admin._id,
      comment: "Raised twice; see MOC 12",
    });
    expectError(await deleteMoc(admin, moc._id, "again"), 404);
  });

  it("a completed MOC: 409 for the admin and the originator, nothing changes", async () => {
    const done = await mocAt("completed", cast);
    const before = await mocSnapshot(done._id);
    expectError(await deleteMoc(admin, done._id, "Old"), 409);
    expectError(await deleteMoc(cast.originator, done._id, "Old"), 409);
    expect(await mocSnapshot(done._id)).toEqual(before);
  });
});

describe("the Deleted list and restoring", () => {
  let moc: Doc;
  beforeAll(async () => {
    moc = await mocAt("c", cast);
    expect((await deleteMoc(admin, moc._id, "Wrong vessel")).status).toBe(200);
  });

  it("admins see each deleted MOC with who, when and why; others are refused", async () => {
    const rows = await listDeletedMocs(admin);
    const row = rows.find((r) => r._id === moc._id);
    expect(row).toMatchObject({
      serialNum: moc.serial_num,
      status: "c",
      deletedBy: "Ada Admin",
      reason: "Wrong vessel",
      deletedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    await expect(listDeletedMocs(hseqMember)).rejects.toMatchObject({ status: 403 });
  });

  it("the /mocs/deleted page: admins read it, others get 403", async () => {
    const loader = async (who: PublicUser) =>
      deletedPage.loader({
        request: await buildRequest({ path: "/mocs/deleted", token: await tokenOf(who), cookie: true }),
        params: {},
        context: {},
      });
    const data = (await loader(admin)) as { rows: { _id: string; reason: string | null }[] };
    expect(data.rows.find((r) => r._id === moc._id)?.reason).toBe("Wrong vessel");
    await expect(loader(cast.originator)).rejects.toMatchObject({ init: { status: 403 } });
  });

  it("restore: others 403, a bad body 400, unknown 404; an admin 200, then 409; the trail has both entries", async () => {
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.originator, hseqMember]) expectError(await restore(who, { moc_id: moc._id }), 403);
    expectError(await restore(null, { moc_id: moc._id }), 401);
    expectError(await restore(admin, { moc_id: "not-a-uuid" }), 400);
    expectError(await restore(admin, {}), 400);
    expectError(await restore(admin, { moc_id: crypto.randomUUID() }), 404);
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const res = await restore(admin, { moc_id: moc._id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ _id: moc._id, isDeleted: false, status: "c" });
    const actions = (res.body.data.logs as { action: string; comment: string | null }[]).map((l) => l.action);
    expect(actions.slice(-2)).toEqual(["Deleted", "Restored"]);
    expect(await lastLog(moc._id)).toMatchObject({ action: "Restored", user_id: admin._id });
    expectError(await restore(admin, { moc_id: moc._id }), 409);

    // Back where it was: readable again, and off the Deleted list.
    const read = await api(singlemocRoute, {
      path: "/api/singlemoc",
      query: { moc_id: moc._id },
      token: await tokenOf(cast.originator),
    });
    expect(read.status, read.text).toBe(200);
    expect((await listDeletedMocs(admin)).map((r) => r._id)).not.toContain(moc._id);
  });

  it("the trail's chain still verifies after deleting and restoring", async () => {
    expect((await verifyAuditTrail()).broken.filter((b) => b.recordId === moc._id)).toEqual([]);
  });
});
