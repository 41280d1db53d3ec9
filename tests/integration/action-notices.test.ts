/**
 * Owners of plan items are told (docs/decisions/029-oidc-and-notifications.md, "Actions"): an
 * action-plan or manuals-plan item newly given to someone sends them one `action` notice per
 * save, honouring their choice for the kind; saving the same plan again, or giving oneself an item,
 * tells nobody.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "#db/client";
import { startBoss } from "#jobs/boss";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import { setPreferences } from "~/models/people/notice-preferences.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday } from "../helpers/moc";
import { createMocOk, makeCast, post } from "../helpers/moc-flow";

type Row = { kind: string | null; emailed: boolean; subject: string; text: string; jobs: number };

async function received(userId: string): Promise<Row[]> {
  return [
    ...(await getDb().execute<Row>(sql`
      select m.kind, m.emailed, m.subject, m.text,
        (select count(*)::int from pgboss.job j where j.data->>'messageId' = m.id::text) as jobs
      from email_messages m where m.to_user_id = ${userId} order by m.created_at`)),
  ];
}

beforeAll(async () => {
  await startBoss();
});

describe("owners of plan items are told", () => {
  it("an item newly given to someone notifies them once, by their choice; a second save or one's own item tells nobody", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const deck = await makeUser({ name: "Dora Deck", department: "fleet" });
    const engine = await makeUser({ name: "Eddie Engine", department: "engineering" });
    const quiet = await makeUser({ name: "Quinn Quiet", department: "fleet" });
    await setPreferences(engine, { action: "in_app" });
    await setPreferences(quiet, { action: "off" });
    const before = (await received(cast.implementer._id)).length;

    const items = [
      { description: "Update the bridge checklist", owner: deck._id, due: daysFromToday(10) },
      { description: "Brief the engine crew", owner: engine._id, due: null },
      { description: "Tell the galley", owner: quiet._id, due: null },
      { description: "Check the spares", owner: cast.implementer._id, due: null },
      { description: "Also for Dora", owner: deck._id, due: null },
    ];
    const saved = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: { id: moc._id, action: { items } },
    });
    expect(saved.status, saved.text).toBe(200);

    const dora = await received(deck._id);
    expect(dora).toHaveLength(1);
    expect(dora[0]).toMatchObject({ kind: "action", emailed: true, jobs: 1 });
    expect(dora[0]!.subject).toContain(`MOC ${moc.serial_num}`);
    expect(dora[0]!.text).toContain(`${cast.implementer.name} made you the owner of 2 items of the action plan`);
    expect(dora[0]!.text).toContain("Update the bridge checklist");
    expect(dora[0]!.text).toContain("Also for Dora");
    expect((await received(engine._id)).map((r) => [r.kind, r.emailed, r.jobs])).toEqual([["action", false, 0]]);
    expect(await received(quiet._id)).toEqual([]);
    // Giving oneself an item tells nobody.
    expect((await received(cast.implementer._id)).length).toBe(before);

    // The same plan saved again (the items keep their ids): nothing new.
    const stored = saved.body.data.action.items as { _id: string; description: string; owner: unknown; due: unknown }[];
    const again = stored.map((item, i) => ({ ...items[i]!, _id: item._id }));
    const resaved = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: { id: moc._id, action: { items: again } },
    });
    expect(resaved.status, resaved.text).toBe(200);
    expect(await received(deck._id)).toHaveLength(1);
    expect(await received(engine._id)).toHaveLength(1);

    // An item handed from Eddie to Dora: Dora is told of that one; Eddie is not told again.
    again[1] = { ...again[1]!, owner: deck._id };
    const handed = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: { id: moc._id, action: { items: again } },
    });
    expect(handed.status, handed.text).toBe(200);
    const doraNow = await received(deck._id);
    expect(doraNow).toHaveLength(2);
    expect(doraNow[1]!.text).toContain(`${cast.implementer.name} made you the owner of an item of the action plan`);
    expect(doraNow[1]!.text).toContain("Brief the engine crew");
    expect(await received(engine._id)).toHaveLength(1);
  });

  it("a manuals-plan item's owner is told too", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const writer = await makeUser({ name: "Wanda Writer", department: "operations" });
    const res = await post(manualsPlanRoute, "/api/manualsPlan", cast.originator, {
      body: {
        id: moc._id,
        manual_plan: {
          items: [{ document: "Safety Management Manual", change: "Section 4.2", owner: writer._id, due: null }],
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    const got = await received(writer._id);
    expect(got.map((r) => [r.kind, r.emailed])).toEqual([["action", true]]);
    expect(got[0]!.text).toContain(`${cast.originator.name} made you the owner of an item of the manuals plan`);
    expect(got[0]!.text).toContain("Safety Management Manual");
  });
});
