/**
 * Issue 41 in the browser, with JavaScript on and off, at 375 px and 1280 px: a crew member's
 * dashboard leads with "My vessel" (a long name, many crew): the vessel's open MOCs (not another
 * vessel's) linking to the record, the crew with ranks capped with a link to the vessel page,
 * which lists everyone on board; an office user's dashboard has no such section. An admin adds a
 * rank on /admin/ranks. Screenshots go under /tmp.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { day, fitsWidth, imo } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test, type Person } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };
const DESKTOP = { width: 1280, height: 900 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/my-vessel-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test(
  "a crew member's dashboard leads with their vessel; an office user's does not show it",
  { tag: "@once" },
  async ({ cast, createUser, mocApi, openAs, request, adminToken }) => {
    test.setTimeout(180_000);
    const tag = randomBytes(3).toString("hex");
    const admin = { Authorization: `Bearer ${adminToken}` };
    const newVessel = async (name: string) => {
      const response = await request.post("/api/vessels", { headers: admin, data: { name, imo: imo() } });
      expect(response.status(), await response.text()).toBe(200);
      return ((await response.json()) as { data: { _id: string; name: string } }).data;
    };
    const vessel = await newVessel(`MV Northern Seas Explorer Of The Very Long Name Line ${tag}`);
    const other = await newVessel(`MV Elsewhere ${tag}`);
    const assign = async (who: { _id: string }, vesselId: string) => {
      const response = await request.post("/api/vessels/assignments", {
        headers: admin,
        data: { vessel_id: vesselId, user_id: who._id, from: day(-1) },
      });
      expect(response.status(), await response.text()).toBe(200);
    };
    const setRank = async (who: { _id: string }, rank: string) => {
      const response = await request.put("/api/users", { headers: admin, data: { _id: who._id, rank } });
      expect(response.status(), await response.text()).toBe(200);
    };

    const made = await createUser({ name: `Mia Mate ${tag}`, department: "fleet" });
    const mate: Person = { ...made, token: made.token! };
    await setRank(mate, "Chief Officer");
    await assign(mate, vessel._id);
    // Many crew: the dashboard shows the first by rank, the vessel page all of them.
    const ranks = ["Master", "Chief Engineer", "Second Engineer", "Bosun", "Cook"];
    for (let i = 0; i < 14; i++) {
      const crew = await createUser({
        name: `Crew ${String(i).padStart(2, "0")} ${tag}`,
        department: "fleet",
        onboarded: false,
      });
      if (ranks[i]) await setRank(crew, ranks[i]!);
      await assign(crew, vessel._id);
    }

    const ours = await mocApi.create(cast, {
      title: { value: `Ballast pump controller ${tag}` },
      vessel: { value: { _id: vessel._id } },
    });
    const theirs = await mocApi.create(cast, {
      title: { value: `Other ship's change ${tag}` },
      vessel: { value: { _id: other._id } },
    });

    const page = await openAs(mate);
    await page.setViewportSize(PHONE);
    await page.goto("/");
    await ready(page);
    const section = page.getByRole("region", { name: `My vessel: ${vessel.name}` });
    await expect(section).toBeVisible();
    // It leads the dashboard: before "Waiting on me".
    const headings = await page.getByRole("heading", { level: 2 }).allTextContents();
    expect(headings[0]).toBe(`My vessel: ${vessel.name}`);
    await expect(section.getByRole("link", { name: new RegExp(`Ballast pump controller ${tag}`) })).toBeVisible();
    await expect(section.getByText(`Other ship's change ${tag}`)).toHaveCount(0);
    await expect(section.getByText("On board today (15)")).toBeVisible();
    await expect(section.getByRole("listitem").filter({ hasText: `Crew 00 ${tag}` })).toContainText("Master");
    await expect(section.getByRole("listitem").filter({ hasText: `Mia Mate ${tag}` })).toContainText("Chief Officer");
    await fitsWidth(page);
    await shot(page, "dashboard-375");
    await page.setViewportSize(DESKTOP);
    await shot(page, "dashboard-1280");
    await page.setViewportSize(PHONE);

    // The crew list is capped; its link leads to the vessel page, which lists everyone on board.
    await section.getByRole("link", { name: "All 15 on board" }).click();
    await expect(page).toHaveURL(new RegExp(`/vessels/${vessel._id}$`));
    await ready(page);
    const onBoard = page.getByRole("region", { name: "On board today (15)" });
    await expect(onBoard.getByRole("listitem")).toHaveCount(15);
    await expect(onBoard.getByRole("listitem").filter({ hasText: `Crew 13 ${tag}` })).toContainText("No rank recorded");
    await fitsWidth(page);
    await shot(page, "vessel-375");

    // The open MOC's link opens the record.
    await page.goto("/");
    await ready(page);
    await page
      .getByRole("region", { name: `My vessel: ${vessel.name}` })
      .getByRole("link", { name: new RegExp(`Ballast pump controller ${tag}`) })
      .click();
    await expect(page).toHaveURL(new RegExp(`/mocs/${ours._id}$`));
    expect(theirs._id).not.toBe(ours._id);

    // Office staff, on no vessel: no "My vessel".
    const office = await openAs(cast.originator);
    await office.setViewportSize(PHONE);
    await office.goto("/");
    await ready(office);
    await expect(office.getByRole("heading", { name: "Waiting on me" })).toBeVisible();
    await expect(office.getByRole("region", { name: /^My vessel/ })).toHaveCount(0);
  },
);

test("an admin adds a rank on /admin/ranks, and it is offered", async ({ browser, baseURL, adminToken, request }) => {
  const tag = randomBytes(3).toString("hex");
  const login = await request.post("/login", {
    form: { email: "admin@e2e.test", password: "e2e-admin-password" },
    headers: { Accept: "application/json" },
  });
  expect(login.status()).toBe(200);
  const context = await browser.newContext({ javaScriptEnabled: jsEnabled() });
  const cookie = login.headers()["set-cookie"]?.match(/(?:^|\n)session=([^;]+)/)?.[1];
  await context.addCookies([{ name: "session", value: cookie!, url: baseURL! }]);
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto("/admin/ranks");
  await ready(page);
  await page.getByLabel("Name", { exact: true }).fill(`Deck Cadet ${tag}`);
  await page.getByRole("button", { name: "Add at the end" }).click();
  await expect(page.getByText(`Deck Cadet ${tag} is added at the end of the list.`)).toBeVisible();
  await expect(
    page
      .getByRole("region", { name: /^The list/ })
      .getByRole("listitem")
      .last(),
  ).toContainText(`Deck Cadet ${tag}`);
  await fitsWidth(page);
  await shot(page, "ranks-375");
  const offered = await request.get("/api/ranks", { headers: { Authorization: `Bearer ${adminToken}` } });
  const names = ((await offered.json()) as { data: { name: string }[] }).data.map((r) => r.name);
  expect(names.at(-1)).toBe(`Deck Cadet ${tag}`);
  await context.close();
});
