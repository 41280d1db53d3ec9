/**
 * PCR signatures people can trust (issue 32; docs/decisions/026-four-eyes-by-record.md): signing
 * over the API re-authenticates like the page (item 6); a signed PCR is withdrawn, never deleted
 * (item 9).
 */
import { describe, expect, it } from "vitest";
import { LOGIN_FAILURE_LIMIT } from "~/models/rate-limit.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { createPcrOk, currentChain, pcrRow, postSignatures, sign } from "../helpers/pcr";

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
