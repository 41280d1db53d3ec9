/**
 * Drives PCRs through the real /api routes: cached sessions, a body builder for the whole
 * signature array (as a client sends it: every slot as it was read, one changed), signing and
 * commenting as a chain slot holder or an affected party, signature values of every kind, and
 * readers of what a request left behind (email rows, the stored row).
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { expect } from "vitest";
import * as affectedPartiesRoute from "~/routes/api+/pcr.affectedParties";
import * as pcrRoute from "~/routes/api+/pcr";
import * as signaturesRoute from "~/routes/api+/pcr.signatures";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { emailMessages, pcrs, users } from "#db/schema";
import { PCR_ROLES, type PcrRole } from "#db/schema/enums";
import { api } from "./api";
import { makeUser, PASSWORD, tokenFor } from "./factories";
import type { CallResult } from "./request";

export { PCR_ROLES, type PcrRole };

// PCR documents as the API returns them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PcrDoc = any;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SERIAL = /^(\d+)-(\d{4})$/;

/** The five positions of the chain after the change originator. */
export const POSITION_ROLES = PCR_ROLES.slice(1) as Exclude<PcrRole, "Change Originator">[];

// ---------------------------------------------------------------------------------------------
// People

const sessions = new Map<string, Promise<string>>();

/** One session per user per test file. */
export function tokenOf(user: { _id: string }): Promise<string> {
  let token = sessions.get(user._id);
  if (!token) {
    token = tokenFor(user as PublicUser);
    sessions.set(user._id, token);
  }
  return token;
}

/** One holder of each chain position, named after it. */
export async function makeHolders(tag = ""): Promise<Record<(typeof POSITION_ROLES)[number], PublicUser>> {
  const made = await Promise.all(
    POSITION_ROLES.map((position) => makeUser({ name: `${position} ${tag}`.trim(), position, department: "fleet" })),
  );
  return Object.fromEntries(POSITION_ROLES.map((role, i) => [role, made[i]!])) as Record<
    (typeof POSITION_ROLES)[number],
    PublicUser
  >;
}

export async function deactivate(user: { _id: string }): Promise<void> {
  await getDb().update(users).set({ active: false }).where(eq(users.id, user._id));
}

/** Sorted addresses of every active user holding one of the positions and/or every active admin. */
export async function activeEmails(filter: { positions?: string[]; admins?: boolean }): Promise<string[]> {
  const conditions = [];
  if (filter.positions?.length) conditions.push(inArray(users.position, filter.positions as never[]));
  if (filter.admins) conditions.push(eq(users.role, "admin"));
  if (!conditions.length) return [];
  const rows = await getDb()
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.active, true), or(...conditions)));
  return rows.map((r) => r.email).sort();
}

export const emailsOf = (...people: { email: string }[]) => [...new Set(people.map((p) => p.email))].sort();

// ---------------------------------------------------------------------------------------------
// Bodies

export function pcrBody(
  options: {
    parties?: { _id: string }[];
    form?: Record<string, unknown>;
    signatures?: unknown;
  } = {},
) {
  return {
    form: {
      "new-suggestion": false,
      "procedure-change": true,
      "safety-critical": false,
      "manual-procedure": "<p>Deck manual, section 4</p>",
      "suggestion-details": "<p>Check the <strong>mooring lines</strong> twice a watch</p>",
      "reason-for-change": "<p>Two near misses last quarter</p>",
      ...options.form,
    },
    affectedParties: (options.parties ?? []).map((p) => ({ Name: { value: p._id }, Signature: false, Comments: "" })),
    ...(options.signatures === undefined ? {} : { signatures: options.signatures }),
  };
}

/** The six slots, unsigned, as a client builds them for a new PCR. */
export const emptyChain = () =>
  PCR_ROLES.map((Name) => ({ Name, Signature: false, signatureDate: null, Comments: "" }));

/** A small real PNG (1x1, white) as a data URL. */
export const TINY_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

/** A PNG data URL whose decoded payload is exactly `bytes` long (a PNG header, then filler). */
export function pngOfSize(bytes: number): string {
  const payload = Buffer.alloc(bytes, 0x41);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(payload);
  return `data:image/png;base64,${payload.toString("base64")}`;
}

// ---------------------------------------------------------------------------------------------
// Requests

export async function createPcrOk(
  originator: { _id: string },
  options: Parameters<typeof pcrBody>[0] = {},
): Promise<PcrDoc> {
  const res = await api(pcrRoute, {
    method: "POST",
    path: "/api/pcr",
    token: await tokenOf(originator),
    body: pcrBody(options),
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The stored PCR row. */
export async function pcrRow(id: string) {
  const [row] = await getDb().select().from(pcrs).where(eq(pcrs.id, id));
  return row;
}

/** The signatures as a client that just read the PCR would send them back. */
export async function currentChain(pcrId: string) {
  const row = await pcrRow(pcrId);
  expect(row, `PCR ${pcrId}`).toBeTruthy();
  return row!.signatures.map((s) => ({
    Name: s.Name as string,
    Signature: (s.state === "signed" ? s.signature : s.state === "commented" ? null : false) as string | false | null,
    signatureDate: s.signatureDate,
    Comments: s.Comments,
  }));
}

export async function currentParties(pcrId: string) {
  const row = await pcrRow(pcrId);
  return row!.affectedParties.map((a) => ({
    Name: { value: a.userId },
    Signature: (a.state === "signed" ? a.signature : a.state === "commented" ? null : false) as string | false | null,
    Comments: a.Comments,
  }));
}

export async function postSignatures(actor: { _id: string } | null, body: unknown): Promise<CallResult> {
  return api(signaturesRoute, {
    method: "POST",
    path: "/api/pcr/signatures",
    token: actor ? await tokenOf(actor) : undefined,
    body,
  });
}

export async function postParties(actor: { _id: string } | null, body: unknown): Promise<CallResult> {
  return api(affectedPartiesRoute, {
    method: "POST",
    path: "/api/pcr/affectedParties",
    token: actor ? await tokenOf(actor) : undefined,
    body,
  });
}

/** The whole array as last read, with `role`'s slot changed: signed with `signature`, and/or commented. */
export async function chainWith(
  pcrId: string,
  role: PcrRole,
  change: { signature?: string | false | null; comments?: string },
) {
  const chain = await currentChain(pcrId);
  const slot = chain.find((s) => s.Name === role)!;
  if (change.signature !== undefined) slot.Signature = change.signature;
  if (change.comments !== undefined) slot.Comments = change.comments;
  return chain;
}

/**
 * `actor` signs (or comments on) `role`'s slot through /api/pcr/signatures, re-authenticating with
 * the factories' password unless `password` says otherwise (null: none sent).
 */
export async function sign(
  actor: { _id: string; name?: string },
  pcrId: string,
  role: PcrRole,
  change: { signature?: string | false | null; comments?: string; password?: string | null } = {},
): Promise<CallResult> {
  const { password = PASSWORD, ...slot } = change;
  const signature = "signature" in slot ? slot.signature : (actor.name ?? "A Signer");
  return postSignatures(actor, {
    pcrId,
    signatures: await chainWith(pcrId, role, { ...slot, signature }),
    ...(password === null ? {} : { password }),
  });
}

export async function signOk(
  actor: { _id: string; name?: string },
  pcrId: string,
  role: PcrRole,
  change: { signature?: string | false | null; comments?: string } = {},
): Promise<PcrDoc> {
  const res = await sign(actor, pcrId, role, change);
  expect(res.status, `${role}: ${res.text}`).toBe(200);
  return res.body.data;
}

/** `actor` signs (or comments on) the affected-party entry of `partyId` (their own, normally). */
export async function partySign(
  actor: { _id: string; name?: string },
  pcrId: string,
  change: { signature?: string | false | null; comments?: string; partyId?: string } = {},
): Promise<CallResult> {
  const parties = await currentParties(pcrId);
  const partyId = change.partyId ?? actor._id;
  const entry = parties.find((p) => p.Name.value === partyId) ?? {
    Name: { value: partyId },
    Signature: false as string | false | null,
    Comments: "",
  };
  entry.Signature = "signature" in change ? change.signature! : (actor.name ?? "A Party");
  if (change.comments !== undefined) entry.Comments = change.comments;
  return postParties(actor, { pcrId, affectedParties: [entry] });
}

/** Signs the chain from `from` to `to` (inclusive) with the given signers. */
export async function signChain(
  pcrId: string,
  signers: Partial<Record<PcrRole, { _id: string; name: string }>>,
  roles: readonly PcrRole[] = PCR_ROLES,
): Promise<PcrDoc> {
  let doc: PcrDoc = null;
  for (const role of roles) doc = await signOk(signers[role]!, pcrId, role);
  return doc;
}

export const unknownId = () => randomUUID();

// ---------------------------------------------------------------------------------------------
// Emails

export async function emailRows(pcrId: string): Promise<{ id: string; toEmail: string; recordType: string | null }[]> {
  return getDb()
    .select({ id: emailMessages.id, toEmail: emailMessages.toEmail, recordType: emailMessages.recordType })
    .from(emailMessages)
    .where(eq(emailMessages.recordId, pcrId))
    .orderBy(asc(emailMessages.id));
}

/** Runs `fn` and returns the sorted addresses emailed about the PCR meanwhile. */
export async function emailsDuring<T>(pcrId: string, fn: () => Promise<T>): Promise<{ result: T; to: string[] }> {
  const before = new Set((await emailRows(pcrId)).map((r) => r.id));
  const result = await fn();
  const to = (await emailRows(pcrId))
    .filter((r) => !before.has(r.id))
    .map((r) => r.toEmail)
    .sort();
  return { result, to };
}

/** Every email row in the database (for "a refused request sent nothing"). */
export async function emailCount(): Promise<number> {
  const [row] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from email_messages`);
  return row!.n;
}
