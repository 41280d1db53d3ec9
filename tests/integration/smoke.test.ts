import { describe, expect, it } from "vitest";
import * as myUser from "~/routes/api+/myUser";
import { makeUser, tokenFor } from "../helpers/factories";
import { call } from "../helpers/request";

describe("harness", () => {
  it("answers /api/myUser for a real session", async () => {
    const user = await makeUser();
    const res = await call(myUser, { path: "/api/myUser", token: await tokenFor(user) });
    expect(res.status).toBe(200);
    expect(res.body.userData._id).toBe(user._id);
  });
});
