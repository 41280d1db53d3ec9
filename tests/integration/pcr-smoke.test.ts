import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "#db/client";
import * as pcrRoute from "~/routes/api+/pcr";
import * as signatures from "~/routes/api+/pcr.signatures";
import * as parties from "~/routes/api+/pcr.affectedParties";
import * as summary from "~/routes/api+/pcr.summary";
import * as getAll from "~/routes/api+/getAllPcr";
import { makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { call } from "../helpers/request";

const ROLES = [
  "Change Originator",
  "VP Fleet Management",
  "HSEQ Coordinator",
  "Group HSEQ Manager",
  "Director HSEQ",
  "President",
] as const;

describe("PCR smoke", () => {
  it("collects the chain in order and finishes", async () => {
    const originator = await makeUser();
    const party = await makeUser({ department: "operations" });
    const positions = ROLES.slice(1) as Exclude<(typeof ROLES)[number], "Change Originator">[];
    const holders = await Promise.all(positions.map((position) => makeUser({ position })));
    const created = await call(pcrRoute, {
      method: "POST",
      path: "/api/pcr",
      token: await tokenFor(originator),
      body: {
        form: {
          "suggestion-details": "<p>Do X<script>alert(1)</script></p>",
          "reason-for-change": "Because",
          "safety-critical": true,
        },
        affectedParties: [{ Name: { value: party._id }, Signature: false, Comments: "" }],
      },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.success).toBe(true);
    const pcr = created.body.data;
    expect(pcr.status).toBe("pending");
    expect(pcr.form["suggestion-details"]).toBe("<p>Do X</p>");
    const chain = (signedUpTo: number, names: string[]) =>
      ROLES.map((Name, i) => ({ Name, Signature: i <= signedUpTo ? names[i] : false, Comments: "" }));
    const names = [originator.name, ...holders.map((h) => h.name)];
    // Out of order: the VP cannot sign before the originator.
    const early = await call(signatures, {
      method: "POST",
      path: "/api/pcr/signatures",
      token: await tokenFor(holders[0]!),
      body: {
        pcrId: pcr._id,
        signatures: ROLES.map((Name, i) => ({ Name, Signature: i === 1 ? "VP Name" : false, Comments: "" })),
        password: PASSWORD,
      },
    });
    expect(early.status).toBe(409);
    const signers = [originator, ...holders];
    for (let i = 0; i < ROLES.length; i++) {
      const res = await call(signatures, {
        method: "POST",
        path: "/api/pcr/signatures",
        token: await tokenFor(signers[i]!),
        body: { pcrId: pcr._id, signatures: chain(i, names), password: PASSWORD },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.status).toBe("pending");
    }
    const last = await call(parties, {
      method: "POST",
      path: "/api/pcr/affectedParties",
      token: await tokenFor(party),
      body: {
        pcrId: pcr._id,
        affectedParties: [{ Name: { value: party._id }, Signature: party.name, Comments: "ok" }],
      },
    });
    expect(last.status, last.text).toBe(200);
    expect(last.body.data.status).toBe("finished");
    const list = await call(getAll, { path: "/api/getAllPcr", token: await tokenFor(party) });
    expect(list.body.data).toHaveLength(1);
    const sum = await call(summary, { path: "/api/pcr/summary", token: await tokenFor(originator) });
    expect(sum.body.data[0].signatures.every((s: { Signature: unknown }) => s.Signature === true)).toBe(true);
    const mails = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from email_messages where record_id = ${pcr._id}`,
    );
    expect(mails[0]!.n).toBeGreaterThan(5);
  });
});
