/**
 * What the browser tests of issue 41 share (docs/decisions/055-circulations.md): a finished PCR, a
 * vessel and a crew member assigned to it, each made over /api, and the 375 px width check.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { expect } from "./fixtures";
import type { Doc, Person } from "./pcr-fixtures";

/** The page is no wider than the screen (nothing to scroll sideways). */
export async function fitsWidth(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** The UTC day `offset` days from today, as YYYY-MM-DD. */
export const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** A valid IMO number: six random digits and their check digit. */
export function imo(): string {
  const digits = Array.from(randomBytes(6), (b) => b % 10);
  digits[0] = digits[0] || 1;
  const check = digits.reduce((sum, d, i) => sum + d * (7 - i), 0) % 10;
  return `${digits.join("")}${check}`;
}

/** Every slot of the PCR's chain signed over /api by its holder, in order: the PCR is finished. */
export async function finishPcr(request: APIRequestContext, doc: Doc, signers: Person[]): Promise<void> {
  let current = doc;
  for (const [i, signer] of signers.entries()) {
    const chain = current.signatures.map((s: { Name: string; Signature: unknown; Comments: string }, j: number) => ({
      Name: s.Name,
      Signature: j === i ? signer.name : (s.Signature ?? false),
      Comments: s.Comments ?? "",
    }));
    const signed = await request.post("/api/pcr/signatures", {
      headers: { Authorization: `Bearer ${signer.token}` },
      data: { pcrId: doc._id, signatures: chain, password: signer.password },
    });
    expect(signed.status(), await signed.text()).toBe(200);
    current = ((await signed.json()) as { data: Doc }).data;
  }
  expect(current.status).toBe("finished");
}

/** A new vessel in the register (as the admin); its id. */
export async function makeVessel(request: APIRequestContext, adminToken: string, name: string): Promise<string> {
  const vessel = await request.post("/api/vessels", {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { name, imo: imo() },
  });
  expect(vessel.status(), await vessel.text()).toBe(200);
  return ((await vessel.json()) as { data: { _id: string } }).data._id;
}

/** `userId` assigned to the vessel from `from` (a crew change), as the admin. */
export async function assignToVessel(
  request: APIRequestContext,
  adminToken: string,
  vesselId: string,
  userId: string,
  from = day(-1),
): Promise<void> {
  const assigned = await request.post("/api/vessels/assignments", {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { vessel_id: vesselId, user_id: userId, from },
  });
  expect(assigned.status(), await assigned.text()).toBe(200);
}
