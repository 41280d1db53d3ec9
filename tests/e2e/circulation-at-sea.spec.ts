/**
 * Issue 41 at sea (docs/decisions/055-circulations.md, 045-offline-shell-and-drafts.md): a crew
 * member on board, over the emulated satellite link (256 kbit/s down, 64 up, 700 ms, as
 * `npm run bench -- --only sea`), finds a circulated change on the dashboard, reads it in the
 * record's print view and acknowledges it once, with JavaScript on and off; a crew member assigned to
 * the vessel afterwards is given it at once and acknowledges over /api. With JavaScript: the
 * circulation and the print view read offline from the saved copies, and a "read and understood"
 * written with the link down waits as a draft and applies once when it returns.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { assignToVessel, day, finishPcr, makeVessel } from "./circulation-fixtures";
import { expect, ready, test, type Doc, type Person } from "./pcr-fixtures";

// The service worker is the subject here (blocked elsewhere: tests/e2e/playwright.config.ts).
test.use({ serviceWorkers: "allow" });

/** VSAT: 256 kbit/s down, 64 kbit/s up, 700 ms latency (bytes per second for the DevTools protocol). */
const LINK = { offline: false, latency: 700, downloadThroughput: (256 * 1000) / 8, uploadThroughput: (64 * 1000) / 8 };

async function overTheShipsLink(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", LINK);
}

type Bearer = { token: string };
const auth = (who: Bearer) => ({ Authorization: `Bearer ${who.token}` });

async function circulate(request: APIRequestContext, author: Bearer, pcr: Doc, vesselId: string, note: string) {
  const made = await request.post("/api/circulations", {
    headers: auth(author),
    data: { record: `pcr:${pcr._id}`, vessels: [vesselId], due: day(7), note },
  });
  expect(made.status(), await made.text()).toBe(201);
  return ((await made.json()) as { data: { _id: string } }).data._id;
}

async function tracking(request: APIRequestContext, who: Bearer, pcr: Doc) {
  const answer = await request.get(`/api/circulations?record=pcr:${pcr._id}`, { headers: auth(who) });
  expect(answer.status(), await answer.text()).toBe(200);
  const [only] = ((await answer.json()) as { data: { circulations: { totals: Record<string, number> }[] } }).data
    .circulations;
  return only!.totals;
}

async function crewedVessel(request: APIRequestContext, adminToken: string, createUser: CreateUser, tag: string) {
  const vesselId = await makeVessel(request, adminToken, `MV Aurora Borealis of the Northern Seas ${tag}`);
  const made = await createUser({ name: `Bo Bosun ${tag}`, department: "fleet" });
  const crew: Person = { ...made, token: made.token! };
  await assignToVessel(request, adminToken, vesselId, crew._id);
  return { vesselId, crew };
}
type CreateUser = Parameters<Parameters<typeof test>[2]>[0]["createUser"];

test("over the ship's link a crew member finds the change, reads it and acknowledges once; a joiner is given it at once", async ({
  cast,
  createPcr,
  createUser,
  openAs,
  request,
  adminToken,
}) => {
  test.setTimeout(240_000);
  const tag = randomBytes(3).toString("hex");
  const { vesselId, crew } = await crewedVessel(request, adminToken, createUser, tag);
  const pcr = await createPcr(cast.originator);
  await finishPcr(request, pcr, [cast.originator, ...Object.values(cast.holders)]);
  const circulationId = await circulate(
    request,
    cast.originator,
    pcr,
    vesselId,
    "Lookouts: a second lookout in restricted visibility, from the next watch.",
  );

  const page = await openAs(crew);
  await page.setViewportSize({ width: 375, height: 800 });
  await overTheShipsLink(page);
  await page.goto("/");
  const waiting = page.getByRole("region", { name: "To read and acknowledge" });
  await expect(waiting).toContainText("Lookouts: a second lookout");
  await waiting.getByRole("link", { name: /^Read and acknowledge PCR/ }).click();
  await expect(page).toHaveURL(new RegExp(`/circulations/${circulationId}$`));
  await ready(page);
  const mine = page.getByRole("region", { name: "Your acknowledgement" });
  await mine.getByRole("link", { name: /PCR/ }).click();
  await expect(page).toHaveURL(new RegExp(`/pcrs/${pcr._id}/print$`));
  await expect(page.getByText("Add a second lookout in restricted visibility")).toBeVisible();
  await page.goBack();
  await ready(page);
  await mine.getByRole("button", { name: "I have read and understood this change" }).click();
  await expect(page.getByText("Thank you: your acknowledgement is recorded.")).toBeVisible({ timeout: 30_000 });
  await expect(mine).toContainText("You acknowledged on");
  // Nothing waits for them now.
  await page.goto("/");
  await expect(page.getByRole("region", { name: "To read and acknowledge" })).toHaveCount(0);

  // A crew change: the joiner has nothing waiting, is assigned, and has it at once.
  const made = await createUser({ name: `Jo Joiner ${tag}`, department: "fleet" });
  const joiner: Person = { ...made, token: made.token! };
  const pendingOf = async () => {
    const answer = await request.get("/api/myAcknowledgements", { headers: auth(joiner) });
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { data: { items: { circulationId: string }[]; total: number } }).data;
  };
  expect((await pendingOf()).total).toBe(0);
  await assignToVessel(request, adminToken, vesselId, joiner._id, day(0));
  const pending = await pendingOf();
  expect(pending.items.map((i) => i.circulationId)).toEqual([circulationId]);
  const first = await request.post("/api/acknowledge", {
    headers: auth(joiner),
    data: { circulation_id: circulationId, comment: "Joined at Rotterdam; read on the first day." },
  });
  expect(first.status(), await first.text()).toBe(201);
  const again = await request.post("/api/acknowledge", {
    headers: auth(joiner),
    data: { circulation_id: circulationId },
  });
  expect(again.status()).toBe(200);
  expect(((await again.json()) as { data: { created: boolean } }).data.created).toBe(false);
  expect((await pendingOf()).total).toBe(0);

  const totals = await tracking(request, cast.originator, pcr);
  expect(totals).toMatchObject({ total: 2, acknowledged: 2, waiting: 0, overdue: 0, left: 0 });
});

test(
  "offline on board: the circulation and the record's print view read from the saved copies; an acknowledgement written without a link applies once when it returns",
  { tag: "@js" },
  async ({ cast, createPcr, createUser, openAs, request, adminToken }) => {
    test.setTimeout(240_000);
    const tag = randomBytes(3).toString("hex");
    const { vesselId, crew } = await crewedVessel(request, adminToken, createUser, tag);
    const pcr = await createPcr(cast.originator);
    await finishPcr(request, pcr, [cast.originator, ...Object.values(cast.holders)]);
    const circulationId = await circulate(request, cast.originator, pcr, vesselId, "Mooring: toolbox talk first.");
    const path = `/circulations/${circulationId}`;

    const page = await openAs(crew);
    await page.goto("/");
    await ready(page);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve));
      }
    });
    await page.goto(`/pcrs/${pcr._id}/print`);
    await expect(page.getByText("Add a second lookout in restricted visibility")).toBeVisible();
    await page.goto(path);
    await ready(page);
    await page.locator("html[data-drafts=ready]").waitFor({ state: "attached" });

    // The link drops: the saved copies read under the banner.
    await page.context().setOffline(true);
    const reader = await page.context().newPage();
    await reader.goto(path);
    const banner = reader.getByRole("status").filter({ hasText: /^Offline — as of \d{2}:\d{2} UTC/ });
    await expect(banner).toBeVisible();
    await expect(reader.getByText("Mooring: toolbox talk first.")).toBeVisible();
    await reader.goto(`/pcrs/${pcr._id}/print`);
    await expect(banner).toBeVisible();
    await expect(reader.getByText("Add a second lookout in restricted visibility")).toBeVisible();
    await reader.close();

    // "Read and understood" written with the link down waits, named by what it is.
    const mine = page.getByRole("region", { name: "Your acknowledgement" });
    await mine.getByLabel(/A question or comment/).fill("Does this apply at anchor too?");
    await mine.getByRole("button", { name: "I have read and understood this change" }).click();
    const drafts = page.locator(".drafts-panel");
    await expect(drafts).toContainText("Waiting to send (1)");
    await expect(drafts).toContainText("Read and understood:");
    expect((await tracking(request, cast.originator, pcr)).acknowledged).toBe(0);

    // The link returns: it applies once.
    await page.context().setOffline(false);
    await expect(drafts).toBeHidden({ timeout: 30_000 });
    await page.goto(path);
    await expect(page.getByRole("region", { name: "Your acknowledgement" })).toContainText("You acknowledged on");
    expect(await tracking(request, cast.originator, pcr)).toMatchObject({ total: 1, acknowledged: 1 });
    const questions = page.getByRole("region", { name: "Questions and comments" });
    await expect(questions).toContainText("Does this apply at anchor too?");
  },
);
