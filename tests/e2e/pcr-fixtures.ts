/**
 * Fixtures for the PCR pages: people made through the real API (holders of the chain's positions
 * among them), signed-in browser contexts, one per person, with JavaScript on or off as the project
 * says, and the steps a signer takes on /pcrs/:id (draw or type, re-enter the password, Sign).
 */
import type { BrowserContext, Locator, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { test as base, expect, signIn, type CreatedUser } from "./fixtures";

export { expect };

export const CHAIN = [
  "Change Originator",
  "VP Fleet Management",
  "HSEQ Coordinator",
  "Group HSEQ Manager",
  "Director HSEQ",
  "President",
] as const;
export type Role = (typeof CHAIN)[number];
export const POSITIONS = CHAIN.slice(1) as Exclude<Role, "Change Originator">[];

export type Person = CreatedUser & { token: string };

/** The people of one PCR: its originator, one holder per position, an affected party, an outsider. */
export type PcrCast = {
  originator: Person;
  holders: Record<(typeof POSITIONS)[number], Person>;
  party: Person;
  outsider: Person;
};

// A PCR document as /api returns it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = any;

export type OpenAs = (who: Person, options?: { viaForm?: boolean }) => Promise<Page>;

export const test = base.extend<{
  cast: PcrCast;
  openAs: OpenAs;
  /** GET /api/pcr/:id as the admin. */
  readPcr: (id: string) => Promise<Doc>;
  /** POST /api/pcr as `who`, with `parties` as affected parties. */
  createPcr: (who: Person, parties?: Person[]) => Promise<Doc>;
}>({
  cast: async ({ createUser }, use) => {
    const tag = randomBytes(3).toString("hex");
    const person = async (name: string, extra: Parameters<typeof createUser>[0] = {}): Promise<Person> => {
      const user = await createUser({ name: `${name} ${tag}`, ...extra });
      return { ...user, token: user.token! };
    };
    const [originator, party, outsider, ...held] = await Promise.all([
      person("Orla Originator", { department: "engineering" }),
      person("Paddy Party", { department: "operations" }),
      person("Otis Outsider", { department: "engineering" }),
      ...POSITIONS.map((position) => person(position, { department: "fleet", position })),
    ]);
    const holders = Object.fromEntries(POSITIONS.map((p, i) => [p, held[i]!])) as PcrCast["holders"];
    await use({ originator: originator!, party: party!, outsider: outsider!, holders });
  },

  openAs: async ({ browser, baseURL }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (who, { viaForm = false } = {}) => {
      const context = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
      contexts.push(context);
      const page = await context.newPage();
      if (viaForm) await signIn(page, who.email, who.password);
      // The session made when the user was onboarded: the same cookie /login sets.
      else await context.addCookies([{ name: "session", value: who.cookie!, url: baseURL! }]);
      return page;
    });
    await Promise.all(contexts.map((c) => c.close()));
  },

  readPcr: async ({ request, adminToken }, use) => {
    await use(async (id) => {
      const response = await request.get(`/api/pcr/${id}`, { headers: { Authorization: `Bearer ${adminToken}` } });
      expect(response.status()).toBe(200);
      return ((await response.json()) as { data: Doc }).data;
    });
  },

  createPcr: async ({ request }, use) => {
    await use(async (who, parties = []) => {
      const response = await request.post("/api/pcr", {
        headers: { Authorization: `Bearer ${who.token}` },
        data: {
          form: {
            "procedure-change": true,
            "manual-procedure": "<p>Bridge manual, chapter 2</p>",
            "suggestion-details": "<p>Add a second lookout in restricted visibility</p>",
            "reason-for-change": "<p>Recommendation from the last audit</p>",
          },
          affectedParties: parties.map((p) => ({ Name: { value: p._id }, Signature: false, Comments: "" })),
        },
      });
      expect(response.status(), await response.text()).toBe(200);
      return ((await response.json()) as { data: Doc }).data;
    });
  },
});

export const jsEnabled = () => test.info().project.use.javaScriptEnabled !== false;

/**
 * With JavaScript, waits until React has hydrated the page and run its effects. Just after a
 * navigation the new document may have no body yet: that is "not yet", not an error.
 */
export async function ready(page: Page) {
  if (!jsEnabled()) return;
  await page.waitForFunction(
    () => document.body !== null && Object.keys(document.body).some((k) => k.startsWith("__reactProps")),
  );
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
}

/** Fills a rich text field: the editor with JavaScript, the textarea without. */
export async function fillRichText(page: Page, label: string, text: string) {
  if (jsEnabled()) await expect(page.getByRole("toolbar", { name: `${label} formatting` })).toBeVisible();
  await page.getByRole("textbox", { name: label, exact: true }).fill(text);
}

/** The serial number from the record's heading ("PCR 12-2026"). */
export async function serialOf(page: Page): Promise<string> {
  const heading = await page.getByRole("heading", { level: 1 }).textContent();
  const serial = heading?.match(/^PCR (\d+-\d{4})( — .*)?$/)?.[1];
  expect(serial, `heading: ${heading}`).toBeTruthy();
  return serial!;
}

/** Draws a stroke across the signature canvas with the mouse, until the pad has given its PNG. */
export async function drawSignature(page: Page, form: Locator) {
  // A typed name is offered first (it works from the keyboard); drawing is the other choice.
  await form.getByLabel("Draw my signature").check();
  const canvas = form.getByTestId("signature-canvas");
  await expect(canvas).toBeVisible();
  await expect(form.getByText("Draw your signature")).toBeVisible();
  const hidden = form.locator('input[type="hidden"][name="signature"]');
  // The pad is loaded after hydration; draw again until it has taken the stroke.
  await expect(async () => {
    const box = (await canvas.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 12, y);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) {
      const x = box.x + 12 + ((box.width - 24) * i) / 12;
      await page.mouse.move(x, y + Math.sin(i) * box.height * 0.3, { steps: 2 });
    }
    await page.mouse.up();
    expect(await hidden.inputValue()).toMatch(/^data:image\/png;base64,/);
  }).toPass({ timeout: 10_000 });
}

/** The section where `who` signs: "Your signature as <role>" or "... as an affected party". */
export const signSection = (page: Page, as: Role | "an affected party") =>
  page.getByRole("region", { name: `Your signature as ${as}` });

/** Gives a signature in `section`: drawn with JavaScript, the typed full name without. */
export async function giveSignature(page: Page, section: Locator, fullName: string) {
  if (jsEnabled()) await drawSignature(page, section);
  else await section.getByLabel("Type your full name as your signature").fill(fullName);
}

/** Signs in `section` with `password` and presses Sign. */
export async function signWith(page: Page, section: Locator, who: { name: string }, password: string) {
  await giveSignature(page, section, who.name);
  await section.getByLabel("Your password (to confirm it is you)").fill(password);
  await section.getByRole("button", { name: "Sign", exact: true }).click();
}
