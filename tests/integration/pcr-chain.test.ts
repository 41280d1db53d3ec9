/**
 * The PCR chain declared once (app/models/pcr/pcr-chain.server.ts): the record page offers a sign form
 * only for the slot the signing accepts (a holder of two chain roles who signed one is offered
 * none, and told why), the page signs one slot by the same rule as the API's whole array, and
 * "waiting on" in SQL agrees with the predicates; the chain's steps on the workflow engine
 * (`PCR_WORKFLOW`) wait on the next slot, in TypeScript and in SQL.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as pcrViewPage from "~/routes/pcrs+/$id";
import { createDelegation } from "~/models/people/delegation.server";
import {
  PCR_CHAIN,
  PCR_WORKFLOW,
  nextSlot,
  pcrState,
  slotDefinition,
  waitsOnSlotSql,
} from "~/models/pcr/pcr-chain.server";
import { delegatedPcrSignatures, pendingPcrSignatures } from "~/models/pcr/pcr-signing.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser, PASSWORD } from "../helpers/factories";
import { buildRequest } from "../helpers/request";
import {
  createPcrOk,
  makeHolders,
  partySign,
  pcrRow,
  PCR_ROLES,
  sign,
  signChain,
  signOk,
  tokenOf,
} from "../helpers/pcr";

const VP = "VP Fleet Management" as const;

async function pageOf(user: { _id: string }, id: string) {
  return pcrViewPage.loader({
    request: await buildRequest({ path: `/pcrs/${id}`, token: await tokenOf(user), cookie: true }),
    params: { id },
    context: {},
  });
}

/** Posts the page's sign-or-comment form; answers the redirect's status (a flash) or the form's. */
async function postPage(user: { _id: string }, id: string, fields: Record<string, string>) {
  const response = (await pcrViewPage.action({
    request: await buildRequest({
      method: "POST",
      path: `/pcrs/${id}`,
      token: await tokenOf(user),
      cookie: true,
      body: new URLSearchParams(fields).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
    params: { id },
    context: {},
  })) as Response | { init: { status: number } | null };
  return response instanceof Response ? response.status : (response.init?.status ?? 200);
}

const period = (absent: { _id: string }, delegate: { _id: string }) => ({
  userId: absent._id,
  delegateId: delegate._id,
  startsOn: new Date().toISOString().slice(0, 10),
  endsOn: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
});

describe("the page offers what the signing accepts", () => {
  it("a holder of two chain roles who signed one is offered no sign form, told why, and may still comment", async () => {
    const vp = await makeUser({ position: VP, name: `Vic Twohats ${Date.now()}` });
    const pcr = await createPcrOk(vp);
    const before = await pageOf(vp, pcr._id);
    expect(before.canSignSlot).toBe("Change Originator");
    expect(before.signRefused).toBeNull();

    await signOk(vp, pcr._id, "Change Originator");
    const page = await pageOf(vp, pcr._id);
    expect(page.next).toBe(1);
    expect(page.canSignSlot).toBeNull();
    expect(page.signRefused).toContain("one person signs one slot");
    expect(page.commentSlots).toEqual(["Change Originator", VP]);
    // Nor does their dashboard say the PCR waits on them: the VP slot waits on someone else.
    expect((await pendingPcrSignatures(vp)).map((i) => i.pcrId)).not.toContain(pcr._id);
    // The API refuses what the page no longer offers.
    expect((await sign(vp, pcr._id, VP)).status).toBe(403);
    // A crafted post is refused the same way (a flash on the page), and nothing is signed.
    const status = await postPage(vp, pcr._id, { intent: "sign", slot: VP, signature: vp.name, password: PASSWORD });
    expect(status).toBe(302);
    expect((await pcrRow(pcr._id))!.signatures[1]!.state).toBe("unsigned");
    // A comment as VP is still theirs to leave.
    expect(await postPage(vp, pcr._id, { intent: "comment", slot: VP, comments: "Fine by me" })).toBe(302);
    expect((await pcrRow(pcr._id))!.signatures[1]).toMatchObject({ state: "commented", Comments: "Fine by me" });
  });

  it("their delegate is offered the slot on their behalf and signs it through the page", async () => {
    const vp = await makeUser({ position: VP, name: `Vera VP ${Date.now()}` });
    const deputy = await makeUser();
    const pcr = await createPcrOk(vp);
    await signOk(vp, pcr._id, "Change Originator");
    await createDelegation(vp, period(vp, deputy));
    const page = await pageOf(deputy, pcr._id);
    expect(page.canSignSlot).toBe(VP);
    // The deputy's dashboard lists it under "On behalf of" the VP, who no longer sees it as theirs.
    expect(await delegatedPcrSignatures(vp, deputy)).toContainEqual(
      expect.objectContaining({ pcrId: pcr._id, role: VP }),
    );
    expect((await pendingPcrSignatures(vp)).map((i) => i.pcrId)).not.toContain(pcr._id);
    expect(page.signsFor).toBe(vp.name);
    const status = await postPage(deputy, pcr._id, {
      intent: "sign",
      slot: VP,
      signature: deputy.name,
      password: PASSWORD,
    });
    expect(status).toBe(302);
    expect((await pcrRow(pcr._id))!.signatures[1]).toMatchObject({
      state: "signed",
      signedBy: deputy._id,
      onBehalfOf: vp._id,
    });
  });

  it("the page signs one slot and an affected party's entry, leaving the others as they were", async () => {
    const originator = await makeUser({ name: `Olga Origin ${Date.now()}` });
    const party = await makeUser({ name: `Pat Party ${Date.now()}` });
    const pcr = await createPcrOk(originator, { parties: [party] });
    await signOk(originator, pcr._id, "Change Originator", { signature: false, comments: "Before signing" });
    const sign = { intent: "sign", slot: "Change Originator", signature: originator.name, password: PASSWORD };
    expect(await postPage(originator, pcr._id, sign)).toBe(302);
    const row = (await pcrRow(pcr._id))!;
    // An empty comment keeps the stored one.
    expect(row.signatures[0]).toMatchObject({
      state: "signed",
      signature: originator.name,
      Comments: "Before signing",
    });
    expect(row.signatures.slice(1).every((s) => s.state === "unsigned")).toBe(true);
    expect((await pageOf(party, pcr._id)).canSignAsParty).toBe(true);
    expect(
      await postPage(party, pcr._id, { intent: "sign", slot: "party", signature: party.name, password: PASSWORD }),
    ).toBe(302);
    expect((await pcrRow(pcr._id))!.affectedParties[0]).toMatchObject({ state: "signed", signature: party.name });
    expect((await pageOf(party, pcr._id)).canSignAsParty).toBe(false);
    // An unknown slot is the form's error.
    expect(await postPage(originator, pcr._id, { intent: "comment", slot: "Captain", comments: "x" })).toBe(400);
  });
});

describe("the chain's SQL twins", () => {
  it("waitsOnSlotSql holds exactly where the next slot's who.may does", async () => {
    const holders = await makeHolders(`twin${Date.now()}`);
    const originator = await makeUser();
    const admin = await makeAdmin();
    const stand = await makeUser();
    const vpOriginator = await makeUser({ position: VP });
    const fresh = await createPcrOk(originator);
    const atVp = await createPcrOk(originator);
    await signOk(originator, atVp._id, "Change Originator");
    const atHseq = await createPcrOk(originator);
    await signOk(originator, atHseq._id, "Change Originator");
    await signOk(holders[VP], atHseq._id, VP);
    const substituted = await createPcrOk(vpOriginator);
    await signOk(vpOriginator, substituted._id, "Change Originator");
    await getDb().execute(
      sql`update pcrs set substitutes = ${JSON.stringify([
        { role: VP, userId: stand._id, namedBy: admin._id, namedAt: new Date().toISOString() },
      ])}::jsonb where id = ${substituted._id}`,
    );
    const ids = [fresh._id, atVp._id, atHseq._id, substituted._id];
    const people: PublicUser[] = [originator, admin, stand, vpOriginator, ...Object.values(holders)];
    for (const actor of people) {
      const rows = await getDb().execute<{ id: string; waits: boolean }>(sql`
        select p.id, ${waitsOnSlotSql(actor)} as waits from pcrs p
        where p.id in (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`);
      for (const { id, waits } of rows) {
        const row = (await pcrRow(id))!;
        const next = nextSlot(row.signatures)!;
        const access = {
          originatorId: row.originatorId,
          status: row.status,
          partyIds: row.partyIds,
          substitutes: row.substitutes,
        };
        expect(waits, `${actor.name} on ${row.serialNum}`).toBe(slotDefinition(next.Name).who.may(actor, access));
      }
    }
    // "Waiting on me" reads them: the substitute and the VP see theirs.
    expect((await pendingPcrSignatures(stand)).map((i) => i.pcrId)).toEqual([substituted._id]);
    expect((await pendingPcrSignatures(holders[VP])).map((i) => i.pcrId)).toEqual(
      expect.arrayContaining([atVp._id, substituted._id]),
    );
    expect(PCR_CHAIN.map((d) => d.open.after.length)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("the chain on the workflow engine", () => {
  it("a PCR waits on its next slot, then on its parties, then on nothing; its SQL twins say the same", async () => {
    const holders = await makeHolders(`engine${Date.now()}`);
    const originator = await makeUser();
    const party = await makeUser();
    const signers = { "Change Originator": originator, ...holders };
    const fresh = await createPcrOk(originator, { parties: [party] });
    const atVp = await createPcrOk(originator, { parties: [party] });
    await signOk(originator, atVp._id, "Change Originator");
    const chainDone = await createPcrOk(originator, { parties: [party] });
    await signChain(chainDone._id, signers, PCR_ROLES);
    const finished = await createPcrOk(originator, { parties: [party] });
    await signChain(finished._id, signers, PCR_ROLES);
    expect((await partySign(party, finished._id)).status).toBe(200);
    const expected: [string, string | null, string | null][] = [
      [fresh._id, "Change Originator", originator.name],
      [atVp._id, VP, VP],
      [chainDone._id, "party", "the affected parties"],
      [finished._id, null, null],
    ];
    for (const [id, step, owner] of expected) {
      const row = (await pcrRow(id))!;
      const state = pcrState({ ...row, signatures: row.signatures });
      expect(PCR_WORKFLOW.stepWaiting(state), row.serialNum).toBe(step);
      // The chain's own "next slot" agrees, while the chain is not yet signed.
      expect(nextSlot(row.signatures)?.Name ?? null).toBe(step === "party" ? null : step);
      const [twin] = await getDb().execute<{ step: string | null; owner: string | null }>(sql`
        select ${PCR_WORKFLOW.waitingStepSql} as step, ${PCR_WORKFLOW.ownerSql} as owner from pcrs p where p.id = ${id}`);
      expect(twin, row.serialNum).toEqual({ step, owner });
    }
  });
});
