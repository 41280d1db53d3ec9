/**
 * Fixtures for the MOC pages: a cast of five people made through the real API, MOCs created and
 * advanced through /api (for tests that start mid-pipeline), and signed-in browser contexts, one
 * per person, with JavaScript on or off as the project says.
 */
import type { APIRequestContext, BrowserContext, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import {
  CAST,
  futureDate,
  newMocBody,
  PIPELINE,
  STEP_PATH,
  stepBody,
  type Cast as CastOf,
  type Doc,
} from "../helpers/moc";
import { test as base, expect, signIn, type CreatedUser, type CreateUser } from "./fixtures";

export { expect, futureDate };

export type Person = CreatedUser & { token: string };
export type Cast = CastOf<Person>;
export type { Doc };

/** Where `createAt` stops: the step the MOC then waits for. */
export type Stage = "implementer" | "hseq" | "approver" | "implementation" | "verifier";

async function apiData(response: Awaited<ReturnType<APIRequestContext["get"]>>, what: string): Promise<Doc> {
  expect(response.status(), `${what}: ${await response.text()}`).toBe(200);
  return ((await response.json()) as { data: Doc }).data;
}

async function person(createUser: CreateUser, name: string, department: (typeof CAST)[number][2]): Promise<Person> {
  const user = await createUser({ name, department });
  return { ...user, token: user.token! };
}

export type MocApi = {
  /** POST /api/newmoc as the originator: a MOC waiting for the implementer (status b). */
  create: (cast: Cast, overrides?: Record<string, unknown>) => Promise<Doc>;
  /** POST to an /api endpoint (a pipeline step, a plan) as `who`; must answer 200 `{ data }`. */
  submit: (path: string, who: Person, body: Record<string, unknown>) => Promise<Doc>;
  /** A new MOC pushed through /api until it waits for `stage`. */
  createAt: (cast: Cast, stage: Stage) => Promise<Doc>;
  /** GET /api/singlemoc as the admin. */
  get: (id: string) => Promise<Doc>;
};

/** A signed-in page for `who` in a context of its own. */
export type OpenAs = (who: Person, options?: { viaForm?: boolean }) => Promise<Page>;

export const test = base.extend<{
  cast: Cast;
  /** Signed in, involved in nothing, standard access, not HSEQ: may see no open MOC of others. */
  outsider: Person;
  mocApi: MocApi;
  openAs: OpenAs;
}>({
  cast: async ({ createUser }, use) => {
    const tag = randomBytes(3).toString("hex");
    const people = await Promise.all(
      CAST.map(([, name, department]) => person(createUser, `${name} ${tag}`, department)),
    );
    await use(Object.fromEntries(CAST.map(([role], i) => [role, people[i]!])) as Cast);
  },

  outsider: async ({ createUser }, use) => {
    await use(await person(createUser, `Otto Outsider ${randomBytes(3).toString("hex")}`, "fleet"));
  },

  mocApi: async ({ request, adminToken }, use) => {
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    const api: MocApi = {
      create: async (cast, overrides = {}) =>
        apiData(
          await request.post("/api/newmoc", {
            data: newMocBody(cast.implementer, overrides),
            headers: bearer(cast.originator.token),
          }),
          "newmoc",
        ),
      submit: async (path, who, body) =>
        apiData(await request.post(path, { data: body, headers: bearer(who.token) }), path),
      createAt: async (cast, stage) => {
        let moc = await api.create(cast);
        for (const { step, by } of PIPELINE) {
          if (step === stage) break;
          moc = await api.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
        }
        return moc;
      },
      get: async (id) => {
        const response = await request.get(`/api/singlemoc?moc_id=${id}`, { headers: bearer(adminToken) });
        expect(response.status()).toBe(200);
        return response.json(); // The populated MOC itself (docs/api-contract.md: "the populated MOC").
      },
    };
    await use(api);
  },

  openAs: async ({ browser, baseURL }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (who, { viaForm = false } = {}) => {
      const context = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
      contexts.push(context);
      const page = await context.newPage();
      if (viaForm) {
        await signIn(page, who.email, who.password);
      } else {
        // The session made when the user was onboarded: the same cookie /login sets.
        await context.addCookies([{ name: "session", value: who.cookie!, url: baseURL! }]);
      }
      return page;
    });
    await Promise.all(contexts.map((c) => c.close()));
  },
});

export const jsEnabled = () => test.info().project.use.javaScriptEnabled !== false;

/**
 * With JavaScript, waits until React has hydrated the page (so typed input is not lost to it and
 * the enhanced widgets are in place); without, there is nothing to wait for.
 */
export async function ready(page: Page) {
  if (!jsEnabled()) return;
  // Just after a navigation the new document may have no body yet: "not yet", not an error.
  await page.waitForFunction(
    () => document.body !== null && Object.keys(document.body).some((k) => k.startsWith("__reactProps")),
  );
  // Effects (the rich text editor swaps in its surface in one) run just after hydration commits.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
}

/** Answers a yes/no question (a fieldset of radios) by its legend. */
export async function answer(page: Page, question: string, choice: string) {
  await page.getByRole("group", { name: question, exact: true }).getByLabel(choice, { exact: true }).check();
}

/** Part F (verification): every question answered "Yes", closing the MOC. */
export async function answerAllYes(page: Page) {
  for (const question of [
    "Was the action plan correct and completed?",
    "Have manuals and drawings been changed?",
    "Are trainings complete?",
    "Is feedback complete?",
    "Was the MOC effective?",
    "Close the MOC?",
  ]) {
    await answer(page, question, "Yes");
  }
}

/** The owner line under the record's heading and the stepper's current step. */
export async function expectWaitingOn(page: Page, who: string | RegExp) {
  await expect(page.locator(".owner-line")).toContainText(typeof who === "string" ? `Waiting on ${who}` : who);
  const current = page
    .getByRole("list", { name: "Workflow steps" })
    .getByRole("listitem")
    .filter({ hasText: "(current step)" });
  await expect(current).toContainText(who);
}

/**
 * This MOC's step waits on me, as a link to it: from the dashboard's "Waiting on me" list, or, when
 * the dashboard shows only the 20 steps that waited longest (an HSEQ review waits on the whole
 * department, and the suite leaves many at Part C), from the full list of what waits on me (newest
 * first) and the record's link to the step.
 */
export async function waitingOnMe(page: Page, serial: string, part: string) {
  await page.goto("/");
  const region = page.getByRole("region", { name: "Waiting on me" });
  // A MOC is named with its title when it has one: "MOC 12-2026 — Title" (docs/decisions/036-vessels-and-crew-access.md).
  const link = region.getByRole("link", { name: new RegExp(`^MOC ${serial}( — .*)?: ${escapeRegExp(part)}$`) });
  if (await link.count()) {
    await expect(link).toBeVisible();
    return link;
  }
  const all = region.getByRole("link", { name: /^All \d+ MOCs waiting on me$/ });
  await expect(all, `MOC ${serial}: ${part} is not on the dashboard, and it lists no more`).toBeVisible();
  await all.click();
  await page.getByRole("link", { name: new RegExp(`^MOC ${serial}( — .*)?$`) }).click();
  await expect(page.getByRole("heading", { name: new RegExp(`^MOC ${serial}( — .*)?$`), level: 1 })).toBeVisible();
  // The record's button to the step in hand (app/routes/mocs+/$id.tsx).
  const open = page.locator(`a.button-primary[href^="${new URL(page.url()).pathname}/"]`).first();
  await expect(open).toBeVisible();
  return open;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The serial number from the record's heading ("MOC 12-2025", or "MOC 12-2025 — Title"). */
export async function serialOf(page: Page): Promise<string> {
  // The address may change a moment before the record's heading is drawn (a client navigation).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^MOC \d+-\d{4}( — .*)?$/);
  const heading = await page.getByRole("heading", { level: 1 }).textContent();
  const serial = heading?.match(/^MOC (\d+-\d{4})( — .*)?$/)?.[1];
  expect(serial, `heading: ${heading}`).toBeTruthy();
  return serial!;
}

/** Fills a rich text field: the editor with JavaScript, the textarea without. */
export async function fillRichText(page: Page, label: string, text: string) {
  if (jsEnabled()) await expect(page.getByRole("toolbar", { name: `${label} formatting` })).toBeVisible();
  await page.getByRole("textbox", { name: label, exact: true }).fill(text);
}
