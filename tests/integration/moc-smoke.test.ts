import { describe, expect, it } from "vitest";
import * as newmoc from "~/routes/api+/newmoc";
import * as submitImplementer from "~/routes/api+/submit.implementer";
import * as submitHseq from "~/routes/api+/submit.hseq";
import * as submitApprover from "~/routes/api+/submit.approver";
import * as submitImplementation from "~/routes/api+/submit.implementation";
import * as submitVerifier from "~/routes/api+/submit.verifier";
import * as singlemoc from "~/routes/api+/singlemoc";
import * as user from "~/routes/api+/user";
import { makeUser, tokenFor } from "../helpers/factories";
import { call } from "../helpers/request";
import { approverForm, hseqForm, implementationForm, implementerForm, newMocBody, verifierForm } from "../helpers/moc";

describe("MOC pipeline smoke", () => {
  it("goes from creation to completion", async () => {
    const originator = await makeUser();
    const implementer = await makeUser({ department: "operations" });
    const approver = await makeUser({ department: "fleet" });
    const hseq = await makeUser({ department: "hseq" });
    const t = async (u: { _id: string }) => tokenFor(u as never);
    const created = await call(newmoc, {
      method: "POST",
      path: "/api/newmoc",
      token: await t(originator),
      body: newMocBody(implementer),
    });
    expect(created.status, created.text).toBe(200);
    const moc = created.body.data;
    expect(moc.status).toBe("b");
    expect(moc.serial_num).toMatch(/^\d+-\d{4}$/);
    const actions = await call(user, { path: "/api/user", token: await t(implementer) });
    expect(actions.body.data.actions.map((a: { type: string }) => a.type)).toEqual(["implementer"]);

    const step = async (route: typeof submitHseq, path: string, who: { _id: string }, key: string, form: unknown) => {
      const res = await call(route, {
        method: "POST",
        path,
        token: await t(who),
        body: { moc_id: moc._id, [key]: form },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    expect(
      (
        await step(
          submitImplementer,
          "/api/submit/implementer",
          implementer,
          "implementer_form",
          implementerForm(approver, hseq),
        )
      ).status,
    ).toBe("c");
    expect((await step(submitHseq, "/api/submit/hseq", hseq, "hseq_form", hseqForm())).status).toBe("d");
    expect((await step(submitApprover, "/api/submit/approver", approver, "approver_form", approverForm())).status).toBe(
      "e",
    );
    expect(
      (
        await step(
          submitImplementation,
          "/api/submit/implementation",
          implementer,
          "implementation",
          implementationForm(),
        )
      ).status,
    ).toBe("f");
    const done = await step(submitVerifier, "/api/submit/verifier", hseq, "verifier_form", verifierForm());
    expect(done.completed).toBe(true);
    expect(done.logs).toHaveLength(6);
    expect(done.all_users.map((u: { _id: string }) => u._id).sort()).toEqual(
      [originator, implementer, approver, hseq].map((u) => u._id).sort(),
    );
    const single = await call(singlemoc, {
      path: "/api/singlemoc",
      query: { moc_id: moc._id },
      token: await t(originator),
    });
    expect(single.status).toBe(200);
    expect(single.text).not.toContain("password");
    const list = await call(newmoc, { path: "/api/newmoc", token: await t(approver) });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].logs[0].userId.name).toBe(originator.name);
  });
});
