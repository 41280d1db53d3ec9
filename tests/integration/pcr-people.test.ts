/**
 * PCR signatures people can trust (docs/decisions/026-four-eyes-by-record.md): signing
 * over the API re-authenticates like the page (item 6); a signed PCR is withdrawn, never deleted
 * (item 9); a PCR raised by a chain position holder can finish (item 19).
 */
import { describe, expect, it } from "vitest";
import { LOGIN_FAILURE_LIMIT } from "~/models/shared/rate-limit.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import * as pcrRoute from "~/routes/api+/pcr";
import * as withdrawRoute from "~/routes/api+/pcr.withdraw";
import * as substituteRoute from "~/routes/api+/pcr.substitute";
import * as usersRoute from "~/routes/api+/users";
import * as pcrByIdRoute from "~/routes/api+/pcr.$id";
import { createDelegation } from "~/models/people/delegation.server";
import { historyOf } from "~/models/audit/audit.server";
import { api } from "../helpers/api";
import { createPcrOk, currentChain, partySign, pcrRow, postSignatures, sign, tokenOf } from "../helpers/pcr";

describe("POST /api/pcr/signatures re-authenticates (item 6)", () => {
  it("401 without a password or with a wrong one, and nothing is signed; the right one signs", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const missing = await sign(originator, pcr._id, "Change Originator", { password: null });
    expect(missing.status, missing.text).toBe(401);
    expect(missing.body.message).toContain("password");
    const wrong = await sign(originator, pcr._id, "Change Originator", { password: "not-my-password" });
    expect(wrong.status, wrong.text).toBe(401);
    expect(wrong.body.message).toBe("The password is not correct");
    expect((await pcrRow(pcr._id))!.signatures[0]!.state).toBe("unsigned");
    const right = await sign(originator, pcr._id, "Change Originator");
    expect(right.status, right.text).toBe(200);
    expect(right.body.data.signatures[0].Signature).toBe(originator.name);
    expect(JSON.stringify(right.body)).not.toContain("password");
  });

  it("a comment alone needs no password (the rest of the contract stays)", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const res = await sign(originator, pcr._id, "Change Originator", {
      signature: false,
      comments: "A remark",
      password: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.signatures[0].Comments).toBe("A remark");
  });

  it("wrong passwords spend the sign-in failure budget: 429 after the limit, even with the right one", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
      const res = await sign(originator, pcr._id, "Change Originator", { password: `wrong-${i}` });
      expect(res.status, res.text).toBe(401);
    }
    const locked = await sign(originator, pcr._id, "Change Originator");
    expect(locked.status, locked.text).toBe(429);
    expect((await pcrRow(pcr._id))!.signatures[0]!.state).toBe("unsigned");
  });

  it("a body sending back the signatures already in (no new one) needs no password", async () => {
    const originator = await makeUser();
    const admin = await makeAdmin();
    const pcr = await createPcrOk(originator);
    expect((await sign(originator, pcr._id, "Change Originator")).status).toBe(200);
    const res = await postSignatures(admin, { pcrId: pcr._id, signatures: await currentChain(pcr._id) });
    expect(res.status, res.text).toBe(200);
  });
});

describe("a signed PCR is withdrawn, never deleted (item 9)", () => {
  const del = async (who: { _id: string }, id: string) =>
    api(pcrRoute, { method: "DELETE", path: "/api/pcr", query: { id }, token: await tokenOf(who) });
  const withdraw = async (who: { _id: string }, body: unknown) =>
    api(withdrawRoute, { method: "POST", path: "/api/pcr/withdraw", token: await tokenOf(who), body });

  it("DELETE answers 409 once anyone signed, for the originator and an admin alike; the PCR stays", async () => {
    const originator = await makeUser();
    const admin = await makeAdmin();
    const pcr = await createPcrOk(originator);
    expect((await sign(originator, pcr._id, "Change Originator")).status).toBe(200);
    for (const who of [originator, admin]) {
      const res = await del(who, pcr._id);
      expect(res.status, res.text).toBe(409);
      expect(res.body.message).toContain("withdraw it instead");
    }
    expect(await pcrRow(pcr._id)).toBeDefined();
  });

  it("an affected party's signature counts too", async () => {
    const originator = await makeUser();
    const party = await makeUser();
    const pcr = await createPcrOk(originator, { parties: [party] });
    expect((await partySign(party, pcr._id)).status).toBe(200);
    expect((await del(originator, pcr._id)).status).toBe(409);
  });

  it("an unsigned PCR is deleted as before", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const res = await del(originator, pcr._id);
    expect(res.status, res.text).toBe(200);
    expect(await pcrRow(pcr._id)).toBeUndefined();
  });

  it("withdrawing keeps the PCR with its signatures, records why in the trail, and stops signing", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    expect((await sign(originator, pcr._id, "Change Originator")).status).toBe(200);
    const missing = await withdraw(originator, { pcrId: pcr._id, reason: "  " });
    expect(missing.status, missing.text).toBe(400);
    expect((await pcrRow(pcr._id))!.status).toBe("pending");
    const res = await withdraw(originator, { pcrId: pcr._id, reason: "Superseded by a fleet-wide procedure" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("withdrawn");
    expect(res.body.data.withdrawnAt).toEqual(expect.any(String));
    expect(res.body.data.signatures[0].Signature).toBe(originator.name);
    const trail = await historyOf("pcr", pcr._id);
    expect(trail.at(-1)).toMatchObject({
      action: "Withdrawn",
      from: "pending",
      to: "withdrawn",
      comment: "Superseded by a fleet-wide procedure",
    });
    const again = await withdraw(originator, { pcrId: pcr._id, reason: "Twice" });
    expect(again.status).toBe(409);
    const vp = await makeUser({ position: "VP Fleet Management" });
    const late = await sign(vp, pcr._id, "VP Fleet Management");
    expect(late.status, late.text).toBe(409);
    expect(late.body.message).toContain("withdrawn");
  });

  it("only the originator (while pending) or an admin withdraws", async () => {
    const originator = await makeUser();
    const stranger = await makeUser({ department: "hseq" });
    const pcr = await createPcrOk(originator);
    const res = await withdraw(stranger, { pcrId: pcr._id, reason: "Not mine" });
    expect(res.status, res.text).toBe(403);
    expect((await pcrRow(pcr._id))!.status).toBe("pending");
  });
});

describe("a PCR raised by a chain position holder can finish (item 19)", () => {
  const VP = "VP Fleet Management" as const;
  const substitute = async (who: { _id: string }, body: unknown) =>
    api(substituteRoute, { method: "POST", path: "/api/pcr/substitute", token: await tokenOf(who), body });
  const period = (absent: { _id: string }, delegate: { _id: string }) => ({
    userId: absent._id,
    delegateId: delegate._id,
    startsOn: new Date().toISOString().slice(0, 10),
    endsOn: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
  });

  it("the originator signs their own slot; their position's slot falls to their delegate", async () => {
    const vp = await makeUser({ position: VP, name: `Vic VP ${Date.now()}` });
    const deputy = await makeUser();
    const pcr = await createPcrOk(vp);
    expect((await sign(vp, pcr._id, "Change Originator")).status).toBe(200);
    const own = await sign(vp, pcr._id, VP);
    expect(own.status, own.text).toBe(403);
    await createDelegation(vp, period(vp, deputy));
    const res = await sign(deputy, pcr._id, VP);
    expect(res.status, res.text).toBe(200);
    const row = (await pcrRow(pcr._id))!;
    expect(row.signatures[1]).toMatchObject({ state: "signed", signedBy: deputy._id, onBehalfOf: vp._id });
  });

  it("or to a substitute an admin names; the originator and earlier signers cannot be named (400 on userId)", async () => {
    const vp = await makeUser({ position: VP });
    const admin = await makeAdmin();
    const stand = await makeUser({ department: "fleet" });
    const pcr = await createPcrOk(vp);
    expect((await sign(vp, pcr._id, "Change Originator")).status).toBe(200);
    const user = await makeUser();
    expect((await substitute(user, { pcrId: pcr._id, role: VP, userId: stand._id })).status).toBe(403);
    for (const who of [vp]) {
      const res = await substitute(admin, { pcrId: pcr._id, role: VP, userId: who._id });
      expect(res.status, res.text).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["userId"]);
    }
    const named = await substitute(admin, { pcrId: pcr._id, role: VP, userId: stand._id });
    expect(named.status, named.text).toBe(200);
    expect(named.body.data.substitutes).toEqual([expect.objectContaining({ role: VP, userId: stand._id })]);
    const res = await sign(stand, pcr._id, VP);
    expect(res.status, res.text).toBe(200);
    expect((await pcrRow(pcr._id))!.signatures[1]).toMatchObject({ state: "signed", signedBy: stand._id });
    const trail = await historyOf("pcr", pcr._id);
    expect(trail.map((e) => e.action)).toContain(`Named ${stand.name} to sign as ${VP} (substitute)`);
  });

  it("a substitute is named only for the originator's own position slot (409 otherwise)", async () => {
    const originator = await makeUser();
    const admin = await makeAdmin();
    const stand = await makeUser();
    const pcr = await createPcrOk(originator);
    const res = await substitute(admin, { pcrId: pcr._id, role: VP, userId: stand._id });
    expect(res.status, res.text).toBe(409);
  });
});

describe("signing under another name (item 7)", () => {
  it("the manifestation keeps the name at signing and the account id; the rename is audited", async () => {
    const signer = await makeUser({ name: `Anna Berg ${Date.now()}` });
    const admin = await makeAdmin();
    const pcr = await createPcrOk(signer);
    expect((await sign(signer, pcr._id, "Change Originator")).status).toBe(200);
    const renamed = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: await tokenOf(admin),
      body: { _id: signer._id, name: "Petra Nilsen" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const doc = await api(pcrByIdRoute, {
      path: `/api/pcr/${pcr._id}`,
      params: { id: pcr._id },
      token: await tokenOf(admin),
    });
    expect(doc.body.data.signatureManifestations[0]).toMatchObject({
      signerId: signer._id,
      printedName: signer.name,
    });
    expect(doc.body.data.signatures[0].signedBy).toMatchObject({ _id: signer._id, name: "Petra Nilsen" });
    const trail = await historyOf("user", signer._id);
    expect(trail.at(-1)).toMatchObject({ action: "Changed name", from: signer.name, to: "Petra Nilsen" });
  });
});
