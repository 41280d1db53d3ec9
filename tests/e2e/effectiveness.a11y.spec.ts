import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./moc-fixtures";
import { stepBody } from "../helpers/moc";

// axe is CPU-heavy on two shared cores: a budget for the slowest run.
test.describe.configure({ timeout: 240_000 });

// Issue 42's pages under axe (JavaScript project only, see a11y.spec.ts): the effectiveness review's
// form, the MOC page with the answered review, and Part A opened as its follow-up.
test("the effectiveness review, the MOC's review section and the follow-up Part A pass an accessibility scan", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.createAt(cast, "verifier");
  await mocApi.submit("/api/submit/verifier", cast.hseq, stepBody("verifier", moc, cast));
  const hseq = await openAs(cast.hseq);
  const scan = async (path: string, heading: string) => {
    await hseq.goto(path);
    await expect(hseq.getByRole("heading", { name: heading }).first()).toBeVisible();
    await ready(hseq);
    await expectNoSeriousA11yViolations(hseq);
  };
  await scan(`/mocs/${moc._id}/effectiveness`, "Effectiveness review");
  const answered = await hseq.request.post("/api/effectivenessReview", {
    data: { id: moc._id, result: "partly", comment: "Half the crews were trained" },
    headers: { Authorization: `Bearer ${cast.hseq.token}` },
  });
  expect(answered.status()).toBe(201);
  await scan(`/mocs/${moc._id}`, "Effectiveness review");
  await scan(`/mocs/new?followUp=moc:${moc._id}&review=1`, "New MOC");
});
