/**
 * "My vessel" on the dashboard (issue 41): for a person on board today, their vessel's open MOCs
 * (not another vessel's), its temporary changes in effect, its crew with ranks and its MOCs
 * completed in the last 90 days, each capped with its total; several vessels, a switch; nothing at
 * all (and one query) for office staff; and the dashboard's loader carrying it.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as dashboardPage from "~/routes/_index";
import { completeMocContext } from "~/models/moc/moc-context.server";
import { myVessel, MY_VESSEL_SHOWN } from "~/models/overview/my-vessel.server";
import { addAssignment, createVessel, type VesselJson } from "~/models/fleet/vessel.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { buildRequest } from "../helpers/request";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt, temporaryMocAt, type Stage } from "../helpers/moc-flow";
import type { Cast } from "../helpers/moc";

let admin: PublicUser;
let cast: Cast;
let ours: VesselJson;
let other: VesselJson;
let bosun: PublicUser;
let office: PublicUser;
const today = new Date().toISOString().slice(0, 10);

/** A MOC at `stage` whose Part A names `vessel` (recorded by its originator, as the record page does). */
async function mocOn(vessel: VesselJson, stage: Stage) {
  const moc = await mocAt(stage, cast);
  await completeMocContext(cast.originator, { moc_id: moc._id, vessel: { value: { _id: vessel._id } } });
  return moc;
}

beforeAll(async () => {
  admin = await makeAdmin();
  cast = await makeCast();
  ours = await createVessel(admin, { name: "MV Very Long Vessel Name Of The Northern Seas Explorer", imo: "9074729" });
  other = await createVessel(admin, { name: "MV Other", imo: "9176187" });
  bosun = await makeUser({ name: "Bo Bosun", department: "fleet" });
  office = await makeUser({ name: "Olive Office", department: "operations" });
  const master = await makeUser({ name: "Zoe Master", department: "fleet" });
  await getDb().execute(sql`update users set rank = 'Bosun' where id = ${bosun._id}`);
  await getDb().execute(sql`update users set rank = 'Master' where id = ${master._id}`);
  for (const who of [bosun, master]) await addAssignment(admin, { vessel_id: ours._id, user_id: who._id, from: today });
});
afterAll(async () => closeDb());

describe("my vessel", () => {
  it("shows a crew member their vessel's open MOCs only, its temporary changes in effect, its crew with ranks and what finished", async () => {
    const open = await mocOn(ours, "d");
    const elsewhere = await mocOn(other, "d");
    const temporary = await temporaryMocAt("in-effect", cast);
    await completeMocContext(cast.originator, { moc_id: temporary._id, vessel: { value: { _id: ours._id } } });
    const finished = await mocOn(ours, "completed");
    // Completed long ago: not "recent".
    const old = await mocOn(ours, "completed");
    // The trail is append-only (docs/decisions/021): the fixture switches the trigger off to back-date
    // the closing entry, as only a superuser could.
    await getDb().execute(sql`alter table moc_logs disable trigger moc_logs_append_only`);
    try {
      await getDb().execute(sql`update moc_logs set at = now() - interval '120 days'
        where moc_id = ${old._id} and action = 'Verified and closed'`);
    } finally {
      await getDb().execute(sql`alter table moc_logs enable trigger moc_logs_append_only`);
    }

    const data = await myVessel(bosun);
    expect(data).not.toBeNull();
    expect(data!.vessel).toMatchObject({ id: ours._id, name: ours.name });
    expect(data!.vessels).toEqual([{ id: ours._id, name: ours.name }]);
    const openIds = data!.open.rows.map((r) => r.id);
    expect(openIds).toContain(open._id);
    expect(openIds).not.toContain(elsewhere._id);
    expect(openIds).not.toContain(finished._id);
    expect(data!.open.rows.find((r) => r.id === open._id)).toMatchObject({
      serialNum: open.serial_num,
      status: "d",
      owner: expect.any(String),
    });
    expect(data!.temporary.rows.map((r) => r.id)).toEqual([temporary._id]);
    expect(data!.temporary.rows[0]!.temporaryState).toBe("in-effect");
    expect(data!.crew.rows.map((p) => [p.name, p.rank])).toEqual([
      ["Zoe Master", "Master"],
      ["Bo Bosun", "Bosun"],
    ]);
    const finishedIds = data!.finished.rows.map((r) => r.id);
    expect(finishedIds).toContain(finished._id);
    expect(finishedIds).toContain(temporary._id);
    expect(finishedIds).not.toContain(old._id);
    expect(data!.finished.rows.find((r) => r.id === finished._id)?.closedAt).toBe(today);
  });

  it("caps each list, with the total for its 'see all' link", async () => {
    for (let i = 0; i < MY_VESSEL_SHOWN.mocs + 1; i++) await mocOn(ours, "b");
    const data = await myVessel(bosun);
    expect(data!.open.rows).toHaveLength(MY_VESSEL_SHOWN.mocs);
    expect(data!.open.total).toBeGreaterThan(MY_VESSEL_SHOWN.mocs);
  });

  it("offers each vessel of a person on several today, the chosen one shown", async () => {
    const both = await makeUser({ name: "Cy Both", department: "fleet" });
    await addAssignment(admin, { vessel_id: ours._id, user_id: both._id, from: today });
    await addAssignment(admin, { vessel_id: other._id, user_id: both._id, from: today });
    const first = await myVessel(both);
    expect(first!.vessels.map((v) => v.id).sort()).toEqual([ours._id, other._id].sort());
    const chosen = await myVessel(both, other._id);
    expect(chosen!.vessel.id).toBe(other._id);
    expect(chosen!.crew.rows.map((p) => p.name)).toEqual(["Cy Both"]);
    // A vessel they are not on is not theirs to pick: their own is shown.
    const stranger = await createVessel(admin, { name: "MV Stranger", imo: "9321483" });
    expect((await myVessel(both, stranger._id))!.vessel.id).toBe(first!.vessel.id);
  });

  it("is nothing for office staff, and for someone whose assignment has ended", async () => {
    expect(await myVessel(office)).toBeNull();
    const ashore = await makeUser({ department: "fleet" });
    await addAssignment(admin, { vessel_id: ours._id, user_id: ashore._id, from: "2020-01-01", to: "2020-06-30" });
    expect(await myVessel(ashore)).toBeNull();
  });

  it("leads the dashboard's data for crew, and is null on an office user's", async () => {
    const load = async (who: PublicUser, path = "/") => {
      const request = await buildRequest({ path, token: await tokenFor(who), cookie: true });
      return (await dashboardPage.loader({ request, params: {}, context: {} } as never)) as unknown as {
        myVessel: Awaited<ReturnType<typeof myVessel>>;
      };
    };
    expect((await load(bosun)).myVessel?.vessel.id).toBe(ours._id);
    expect((await load(office)).myVessel).toBeNull();
  });
});
