/**
 * Replays apply once (docs/decisions/040-replays-apply-once.md, docs/api-contract.md,
 * "Idempotency keys"): a write with an `Idempotency-Key` header (under /api) or a page form's hidden
 * `idempotencyKey` runs once per person and key; the same request again gets the first answer with
 * no second effect, the same key with another body is 422, one person's key is not another's,
 * concurrent duplicates apply once, a refused (4xx) request keeps no key, and keys past a day are
 * purged. Nothing that proves who someone is is kept (docs/decisions/048-replays-keep-no-credentials.md):
 * no sign-in's token, no password or hash of one, a fingerprint keyed and canonical (JSON keys and
 * form fields in any order). Real routes through app/web/idempotency.server.ts, the server's own wrapper.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "~/routes/_auth+/login";
import * as chatRoute from "~/routes/api+/chat";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as signaturesRoute from "~/routes/api+/pcr.signatures";
import * as userRoute from "~/routes/api+/user";
import * as usersRoute from "~/routes/api+/users";
import * as mocPage from "~/routes/mocs+/$id._index";
import * as impactPage from "~/routes/mocs+/$id.impact";
import * as pcrPage from "~/routes/pcrs+/$id";
import { closeDb, getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { redirectWithFlash } from "~/utils/flash.server";
import {
  IDEMPOTENCY_FIELD,
  KEY_REUSED_MESSAGE,
  PAGE_KEY_REUSED_MESSAGE,
  purgeIdempotencyKeys,
  withIdempotency,
} from "~/web/idempotency.server";
import { runHousekeeping } from "#jobs/housekeeping";
import { chatMessages, idempotencyKeys, mocs } from "#db/schema";
import { BASE, buildRequest, sessionCookieHeader, type CallOptions } from "../helpers/request";
import { createMocOk, makeCast, tokenOf, type Doc } from "../helpers/moc-flow";
import { newMocBody } from "../helpers/moc";
import { makeUser, PASSWORD } from "../helpers/factories";
import { chainWith, createPcrOk } from "../helpers/pcr";
import type { Cast } from "../helpers/moc";

type RouteModule = { action?: (args: never) => Promise<unknown> };
type Answer = { status: number; headers: Headers; text: string; body: unknown };

/** What the server does with a request: withIdempotency around the route's action. */
async function serve(route: RouteModule, request: Request, params: Record<string, string> = {}): Promise<Answer> {
  const response = await withIdempotency(request, async (keyed) => {
    try {
      const answer = await route.action!({ request: keyed, params, context: {} } as never);
      if (answer instanceof Response) return answer;
      // Data, as Remix would send it (`data(value, init)` or a plain value).
      const wrapped = answer as { type?: string; data?: unknown; init?: ResponseInit | null };
      return wrapped?.type === "DataWithResponseInit"
        ? Response.json(wrapped.data, wrapped.init ?? undefined)
        : Response.json(answer);
    } catch (thrown) {
      if (thrown instanceof Response) return thrown;
      throw thrown;
    }
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

async function apiPost(route: RouteModule, who: { _id: string }, options: CallOptions & { key?: string }) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers["Idempotency-Key"] = options.key;
  const request = await buildRequest({ method: "POST", ...options, headers, token: await tokenOf(who) });
  return serve(route, request, options.params);
}

const chatBody = (who: { _id: string }, chatId: string, message: string) => ({
  chat_id: chatId,
  message: { sender: who._id, message, timestamp: new Date().toISOString() },
});

async function messagesSaying(chatId: string, text: string): Promise<number> {
  const rows = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(chatMessages)
    .where(sql`${chatMessages.chatId} = ${chatId} and ${chatMessages.message} = ${text}`);
  return rows[0]!.n;
}

async function mocCount(): Promise<number> {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(mocs);
  return row!.n;
}

let cast: Cast;
let moc: Doc;
beforeAll(async () => {
  cast = await makeCast();
  moc = await createMocOk(cast);
});
afterAll(async () => {
  await closeDb();
});

describe("Idempotency-Key under /api", () => {
  it("the same key and body: the first answer again, applied once", async () => {
    const key = randomUUID();
    const body = chatBody(cast.originator, moc.chat, "Pump arrives Tuesday (once)");
    const first = await apiPost(chatRoute, cast.originator, { path: "/api/chat", body, key });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await apiPost(chatRoute, cast.originator, { path: "/api/chat", body, key });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await messagesSaying(moc.chat, "Pump arrives Tuesday (once)")).toBe(1);
  });

  it("a new MOC sent twice with one key is one MOC", async () => {
    const key = randomUUID();
    const body = newMocBody(cast.implementer);
    const before = await mocCount();
    const first = await apiPost(newmocRoute, cast.originator, { path: "/api/newmoc", body, key });
    expect(first.status, first.text).toBe(200);
    const again = await apiPost(newmocRoute, cast.originator, { path: "/api/newmoc", body, key });
    expect(again.text).toBe(first.text);
    expect(await mocCount()).toBe(before + 1);
  });

  it("the same key with another body is 422 and changes nothing", async () => {
    const key = randomUUID();
    const first = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: chatBody(cast.originator, moc.chat, "First body"),
      key,
    });
    expect(first.status).toBe(200);
    const other = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: chatBody(cast.originator, moc.chat, "Another body"),
      key,
    });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ status: 422, message: KEY_REUSED_MESSAGE });
    expect(await messagesSaying(moc.chat, "Another body")).toBe(0);
    // Another address with the same key is another request too.
    const elsewhere = await apiPost(newmocRoute, cast.originator, {
      path: "/api/newmoc",
      body: chatBody(cast.originator, moc.chat, "First body"),
      key,
    });
    expect(elsewhere.status).toBe(422);
  });

  it("another person's key is theirs alone: the same key applies for each", async () => {
    const key = randomUUID();
    const a = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: chatBody(cast.originator, moc.chat, "Shared key, originator"),
      key,
    });
    const b = await apiPost(chatRoute, cast.implementer, {
      path: "/api/chat",
      body: chatBody(cast.implementer, moc.chat, "Shared key, implementer"),
      key,
    });
    expect(a.status).toBe(200);
    expect(b.status, b.text).toBe(200);
    expect(b.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await messagesSaying(moc.chat, "Shared key, originator")).toBe(1);
    expect(await messagesSaying(moc.chat, "Shared key, implementer")).toBe(1);
    const owners = await getDb()
      .select({ userId: idempotencyKeys.userId })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, key));
    expect(owners.map((o) => o.userId).sort()).toEqual([cast.originator._id, cast.implementer._id].sort());
  });

  it("concurrent duplicates: one applies, the others get its answer", async () => {
    const key = randomUUID();
    const body = chatBody(cast.originator, moc.chat, "Sent five times at once");
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => apiPost(chatRoute, cast.originator, { path: "/api/chat", body, key })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("Idempotent-Replayed") === "true")).toHaveLength(4);
    expect(await messagesSaying(moc.chat, "Sent five times at once")).toBe(1);
  });

  it("a refused request keeps no key: corrected, the same key applies", async () => {
    const key = randomUUID();
    const bad = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: { chat_id: moc.chat, message: { sender: cast.originator._id, message: "" } },
      key,
    });
    expect(bad.status).toBe(400);
    const [kept] = await getDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, key));
    expect(kept!.n).toBe(0);
    const good = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: chatBody(cast.originator, moc.chat, "Corrected"),
      key,
    });
    expect(good.status, good.text).toBe(200);
    expect(await messagesSaying(moc.chat, "Corrected")).toBe(1);
  });

  it("a malformed key is 400 and nothing runs", async () => {
    for (const key of ["short", "x".repeat(201), "has space in it"]) {
      const res = await apiPost(chatRoute, cast.originator, {
        path: "/api/chat",
        body: chatBody(cast.originator, moc.chat, `Malformed ${key.length}`),
        key,
      });
      expect(res.status).toBe(400);
      expect((res.body as { message: string }).message).toMatch(/idempotency key is not valid/);
    }
    expect(await messagesSaying(moc.chat, "Malformed 5")).toBe(0);
  });

  it("without a key a write runs as before (each send applies)", async () => {
    const body = chatBody(cast.originator, moc.chat, "No key, twice");
    await apiPost(chatRoute, cast.originator, { path: "/api/chat", body });
    await apiPost(chatRoute, cast.originator, { path: "/api/chat", body });
    expect(await messagesSaying(moc.chat, "No key, twice")).toBe(2);
  });

  it("without a key an /api write goes to the route as it came, its body unread, and keeps nothing", async () => {
    const body = chatBody(cast.originator, moc.chat, "No key, passed through");
    const request = await buildRequest({
      method: "POST",
      path: "/api/chat",
      body,
      token: await tokenOf(cast.originator),
    });
    const before = await getDb().$count(idempotencyKeys);
    let seen: Request | null = null;
    const response = await withIdempotency(request, async (keyed) => {
      seen = keyed;
      return new Response(null, { status: 204 });
    });
    expect(response.status).toBe(204);
    expect(seen).toBe(request);
    expect(request.bodyUsed).toBe(false);
    expect(await getDb().$count(idempotencyKeys)).toBe(before);
  });
});

describe("a page form's hidden idempotencyKey", () => {
  async function pagePost(who: { _id: string }, fields: Record<string, string>, path = `/mocs/${moc._id}?index`) {
    const request = new Request(new URL(path, BASE), {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: await sessionCookieHeader(await tokenOf(who)),
        Origin: BASE,
      },
      body: new URLSearchParams(fields).toString(),
    });
    return serve(mocPage, request, { id: moc._id });
  }

  it("a form submitted twice with the same key applies once; the replay is the same redirect", async () => {
    const key = randomUUID();
    const fields = { intent: "chat", message: "From the page, twice", [IDEMPOTENCY_FIELD]: key };
    const first = await pagePost(cast.originator, fields);
    expect(first.status).toBe(302);
    expect(first.headers.get("Location")).toBe(`/mocs/${moc._id}#chat-end`);
    // The answer was lost; the browser sends the same form again.
    const again = await pagePost(cast.originator, fields);
    expect(again.status).toBe(302);
    expect(again.headers.get("Location")).toBe(`/mocs/${moc._id}#chat-end`);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await messagesSaying(moc.chat, "From the page, twice")).toBe(1);
  });

  it("the same copy of a form sent again with other contents (another tab) is refused with a page saying what to do", async () => {
    const key = randomUUID();
    const first = await pagePost(cast.originator, {
      intent: "chat",
      message: "From the first tab",
      [IDEMPOTENCY_FIELD]: key,
    });
    expect(first.status).toBe(302);
    const other = await pagePost(cast.originator, {
      intent: "chat",
      message: "From the second tab",
      [IDEMPOTENCY_FIELD]: key,
    });
    expect(other.status).toBe(422);
    const html = other.text;
    expect(html).toContain(PAGE_KEY_REUSED_MESSAGE);
    expect(html).toContain(`href="/mocs/${moc._id}"`);
    expect(await messagesSaying(moc.chat, "From the second tab")).toBe(0);
  });

  it("a form's list buttons (conform's intents: add or remove a row) change nothing and use no key", async () => {
    // Before its validator has loaded, a form sends "Add a category" to the server, which answers
    // the form with one row more (200): no write. The save that follows carries the same copy of
    // the form, so the same key: it must apply, not be refused as the key used with other contents.
    const key = randomUUID();
    const path = `/mocs/${moc._id}/impact`;
    const post = async (fields: Record<string, string>) => {
      const request = new Request(new URL(path, BASE), {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Cookie: await sessionCookieHeader(await tokenOf(cast.implementer)),
          Origin: BASE,
        },
        body: new URLSearchParams(fields).toString(),
      });
      return serve(impactPage, request, { id: moc._id });
    };
    const added = await post({
      [IDEMPOTENCY_FIELD]: key,
      __intent__: JSON.stringify({ type: "insert", payload: { name: "items" } }),
    });
    expect(added.status).toBe(200);
    const stored = await getDb().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    expect(stored).toEqual([]);
    const saved = await post({
      [IDEMPOTENCY_FIELD]: key,
      "items[0].category": "Safety",
      "items[0].hazards": "Electric shock",
    });
    expect(saved.status).toBe(302);
    // The save itself is keyed: sent again, it is the same answer, applied once.
    const again = await post({
      [IDEMPOTENCY_FIELD]: key,
      "items[0].category": "Safety",
      "items[0].hazards": "Electric shock",
    });
    expect(again.status).toBe(302);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("a multipart form is the same request whatever its boundary", async () => {
    const key = randomUUID();
    const send = async () => {
      const form = new FormData();
      form.set("intent", "chat");
      form.set("message", "Multipart, twice");
      form.set(IDEMPOTENCY_FIELD, key);
      const request = new Request(new URL(`/mocs/${moc._id}?index`, BASE), {
        method: "POST",
        headers: { Cookie: await sessionCookieHeader(await tokenOf(cast.originator)), Origin: BASE },
        body: form,
      });
      return serve(mocPage, request, { id: moc._id });
    };
    expect((await send()).status).toBe(302);
    const again = await send();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await messagesSaying(moc.chat, "Multipart, twice")).toBe(1);
  });

  it("the single-fetch post of a page (/x.data) and the page are one address", async () => {
    const key = randomUUID();
    const fields = { intent: "chat", message: "Data then document", [IDEMPOTENCY_FIELD]: key };
    const first = await pagePost(cast.originator, fields, `/mocs/${moc._id}.data?index`);
    expect(first.status).toBeLessThan(400);
    const again = await pagePost(
      cast.originator,
      fields,
      `/mocs/${moc._id}.data?index&_routes=routes%2Fmocs%2B%2F%24id._index`,
    );
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await messagesSaying(moc.chat, "Data then document")).toBe(1);
  });

  it("a form without a key (or without a signed-in person) runs as before", async () => {
    const fields = { intent: "chat", message: "Keyless page post" };
    expect((await pagePost(cast.originator, fields)).status).toBe(302);
    expect((await pagePost(cast.originator, fields)).status).toBe(302);
    expect(await messagesSaying(moc.chat, "Keyless page post")).toBe(2);
  });
});

describe("keys are kept a day", () => {
  it("the hourly housekeeping removes keys older than 24 hours and keeps the rest", async () => {
    const old = randomUUID();
    const fresh = randomUUID();
    const row = {
      userId: cast.verifier._id,
      fingerprint: "f",
      method: "POST",
      path: "/api/chat",
      status: 200,
      headers: {},
      body: "",
    };
    await getDb()
      .insert(idempotencyKeys)
      .values([
        { ...row, key: old, createdAt: new Date(Date.now() - 25 * 3600_000) },
        { ...row, key: fresh, createdAt: new Date(Date.now() - 23 * 3600_000) },
      ]);
    const outcome = await runHousekeeping();
    expect(outcome.idempotencyKeys).toBeGreaterThanOrEqual(1);
    const left = await getDb()
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.userId, cast.verifier._id));
    expect(left.map((r) => r.key)).toEqual([fresh]);
    expect(await purgeIdempotencyKeys(new Date(Date.now() + 2 * 3600_000))).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Credentials (docs/decisions/048-replays-keep-no-credentials.md, issue 40 item 2)

/** The fingerprint before decision 048: an unsalted SHA-256 of the request, which a word list reverses. */
function unkeyedFingerprint(method: string, path: string, body: string | Record<string, string>): string {
  const hash = createHash("sha256").update(`${method} ${path}\n`);
  if (typeof body === "string") return hash.update(body).digest("hex");
  for (const [name, value] of Object.entries(body)) {
    if (name === IDEMPOTENCY_FIELD) continue;
    hash
      .update(`${name.length}:${name}=`)
      .update(`s${Buffer.byteLength(value)}:`)
      .update(value)
      .update("\n");
  }
  return hash.digest("hex");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Every row of the store as text, each column, the stored answer's body decoded too. */
async function storeText(): Promise<string> {
  const rows = await getDb().select().from(idempotencyKeys);
  return rows.map((row) => `${JSON.stringify(row)}\n${Buffer.from(row.body, "base64").toString("utf8")}`).join("\n");
}

async function rowsOf(key: string) {
  return getDb().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
}

describe("nothing that proves who someone is is kept", () => {
  const formRequest = async (
    path: string,
    fields: Record<string, string>,
    options: { who: { _id: string }; key?: string; json?: boolean },
  ) =>
    new Request(new URL(path, BASE), {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: await sessionCookieHeader(await tokenOf(options.who)),
        Origin: BASE,
        ...(options.key ? { "Idempotency-Key": options.key } : {}),
        ...(options.json ? { Accept: "application/json" } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });

  it("a keyed POST /login (an API client's sign-in) keeps neither its token nor a hash of its password", async () => {
    const key = randomUUID();
    const other = await makeUser();
    const fields = { email: other.email, password: PASSWORD };
    const first = await serve(
      loginRoute,
      await formRequest("/login", fields, { who: cast.originator, key, json: true }),
    );
    expect(first.status, first.text).toBe(200);
    const token = (first.body as { token: string }).token;
    expect(token).toBeTruthy();
    expect(await rowsOf(key)).toEqual([]);
    const kept = await storeText();
    expect(kept).not.toContain(token);
    expect(kept).not.toContain(PASSWORD);
    const raw = new URLSearchParams(fields).toString();
    expect(kept).not.toContain(sha256(raw));
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/login", raw));
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/login", fields));
    // The same key again is a new sign-in, never the first answer (decision 048).
    const again = await serve(
      loginRoute,
      await formRequest("/login", fields, { who: cast.originator, key, json: true }),
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect((again.body as { token: string }).token).not.toBe(token);
  });

  it("a keyed page sign-in (the form's hidden key, someone already signed in) keeps no row and no hash of the password", async () => {
    const key = randomUUID();
    const other = await makeUser();
    const fields = { email: other.email, password: PASSWORD, redirectTo: "/", [IDEMPOTENCY_FIELD]: key };
    const first = await serve(loginRoute, await formRequest("/login", fields, { who: cast.originator }));
    expect(first.status, first.text).toBe(302);
    expect(first.headers.get("Set-Cookie")).toMatch(/^session=/);
    expect(await rowsOf(key)).toEqual([]);
    const kept = await storeText();
    expect(kept).not.toContain(PASSWORD);
    const raw = new URLSearchParams(fields).toString();
    expect(kept).not.toContain(sha256(raw));
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/login", fields));
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/login", raw));
  });

  it("a keyed password change (PATCH /api/user) is not kept: its key is not replayed", async () => {
    const key = randomUUID();
    const who = await makeUser();
    const body = { currentPassword: PASSWORD, password: "a-new-long-passphrase" };
    const changed = await apiPost(userRoute, who, { method: "PATCH", path: "/api/user", body, key });
    expect(changed.status, changed.text).toBe(200);
    expect(await rowsOf(key)).toEqual([]);
    expect(await storeText()).not.toContain(unkeyedFingerprint("PATCH", "/api/user", JSON.stringify(body)));
  });

  it("a keyed PCR signature is kept under a keyed fingerprint that leaves the password out", async () => {
    const signer = await makeUser();
    const pcr = await createPcrOk(signer);
    const key = randomUUID();
    const body = {
      pcrId: pcr._id,
      signatures: await chainWith(pcr._id, "Change Originator", { signature: signer.name }),
    };
    const raw = JSON.stringify({ ...body, password: PASSWORD });
    const send = async (text: string) =>
      serve(
        signaturesRoute,
        await buildRequest({
          method: "POST",
          path: "/api/pcr/signatures",
          body: text,
          token: await tokenOf(signer),
          headers: { "Idempotency-Key": key },
        }),
      );
    const first = await send(raw);
    expect(first.status, first.text).toBe(200);
    const [row] = await rowsOf(key);
    expect(row).toBeDefined();
    expect(row!.fingerprint).not.toBe(sha256(raw));
    expect(row!.fingerprint).not.toBe(unkeyedFingerprint("POST", "/api/pcr/signatures", raw));
    expect(await storeText()).not.toContain(PASSWORD);
    // Only the password differs (a guess, or none): the same request, so the fingerprint tests no guess.
    for (const password of ["a-wrong-guess", undefined]) {
      const replay = await send(JSON.stringify({ ...body, password }));
      expect(replay.status, replay.text).toBe(200);
      expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
      expect(replay.text).toBe(first.text);
    }
    expect((await rowsOf(key))[0]!.fingerprint).toBe(row!.fingerprint);
  });

  it("a keyed signature on the PCR page is kept the same way: no hash of the password, a guess replays", async () => {
    const signer = await makeUser();
    const pcr = await createPcrOk(signer);
    const key = randomUUID();
    const fields = (password: string) => ({
      intent: "sign",
      slot: "Change Originator",
      signature: signer.name,
      password,
      comments: "",
      [IDEMPOTENCY_FIELD]: key,
    });
    const send = async (password: string) =>
      serve(
        pcrPage,
        new Request(new URL(`/pcrs/${pcr._id}`, BASE), {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Cookie: await sessionCookieHeader(await tokenOf(signer)),
            Origin: BASE,
          },
          body: new URLSearchParams(fields(password)).toString(),
        }),
        { id: pcr._id },
      );
    const first = await send(PASSWORD);
    expect(first.status, first.text).toBe(302);
    const [row] = await rowsOf(key);
    expect(row).toBeDefined();
    expect(row!.fingerprint).not.toBe(unkeyedFingerprint("POST", `/pcrs/${pcr._id}`, fields(PASSWORD)));
    expect(await storeText()).not.toContain(PASSWORD);
    const guess = await send("a-wrong-guess");
    expect(guess.status).toBe(302);
    expect(guess.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("the same JSON with its keys in another order is the same request; another body is still 422", async () => {
    const key = randomUUID();
    const message = { sender: cast.originator._id, message: "Keys in any order", timestamp: new Date().toISOString() };
    const first = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: `{"chat_id":${JSON.stringify(moc.chat)},"message":${JSON.stringify(message)}}`,
      key,
    });
    expect(first.status, first.text).toBe(200);
    const reordered = {
      message: { timestamp: message.timestamp, message: message.message, sender: message.sender },
      chat_id: moc.chat,
    };
    const again = await apiPost(chatRoute, cast.originator, { path: "/api/chat", body: reordered, key });
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    const other = await apiPost(chatRoute, cast.originator, {
      path: "/api/chat",
      body: { ...reordered, message: { ...reordered.message, message: "Keys in any order, other text" } },
      key,
    });
    expect(other.status).toBe(422);
    expect(await messagesSaying(moc.chat, "Keys in any order")).toBe(1);
  });
});

describe("what is kept, whatever the route", () => {
  const timestamp = new Date().toISOString();
  const keyedChat = async (key: string, text: string) =>
    buildRequest({
      method: "POST",
      path: "/api/chat",
      body: { chat_id: moc.chat, message: { sender: cast.originator._id, message: text, timestamp } },
      token: await tokenOf(cast.originator),
      headers: { "Idempotency-Key": key },
    });

  it("an answer that sets a session cookie or holds a token is not kept: the key sent again runs again", async () => {
    const answers = [
      () => new Response(null, { status: 302, headers: { Location: "/", "Set-Cookie": "session=s3ss10n; Path=/" } }),
      () => Response.json({ status: 200, data: { access_token: "t0k3n-in-the-answer" } }),
    ];
    for (const answer of answers) {
      const key = randomUUID();
      let runs = 0;
      const run = async () => {
        runs += 1;
        return answer();
      };
      expect((await withIdempotency(await keyedChat(key, "Answer with a credential"), run)).status).toBeLessThan(400);
      expect(await rowsOf(key)).toEqual([]);
      const again = await withIdempotency(await keyedChat(key, "Answer with a credential"), run);
      expect(again.headers.get("Idempotent-Replayed")).toBeNull();
      expect(runs).toBe(2);
    }
    expect(await storeText()).not.toMatch(/s3ss10n|t0k3n-in-the-answer/);
  });

  it("a page's flash message does not stop its answer being kept (the cookie itself never is)", async () => {
    const key = randomUUID();
    let runs = 0;
    const run = async () => {
      runs += 1;
      return redirectWithFlash("/", { kind: "success", message: "Sent" });
    };
    expect((await withIdempotency(await keyedChat(key, "Flash"), run)).headers.get("Set-Cookie")).toMatch(/^flash=/);
    const again = await withIdempotency(await keyedChat(key, "Flash"), run);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Set-Cookie")).toBeNull();
    expect(runs).toBe(1);
  });

  it("a new user with a first password (POST /api/users) is not kept; without a password a write is", async () => {
    const admin = await makeUser({ role: "admin", department: "hseq", access: "full" });
    const key = randomUUID();
    const body = {
      name: "Kept Not",
      email: `kept-not-${key}@example.com`,
      password: "a-first-passphrase",
      department: "fleet",
    };
    const created = await apiPost(usersRoute, admin, { path: "/api/users", body, key });
    expect(created.status, created.text).toBe(201);
    expect(await rowsOf(key)).toEqual([]);
    expect(await storeText()).not.toContain(unkeyedFingerprint("POST", "/api/users", JSON.stringify(body)));
    const renamed = randomUUID();
    const rename = { _id: (created.body as { data: { _id: string } }).data._id, name: "Kept Now" };
    expect(
      (await apiPost(usersRoute, admin, { method: "PUT", path: "/api/users", body: rename, key: renamed })).status,
    ).toBe(200);
    expect(await rowsOf(renamed)).toHaveLength(1);
  });

  it("form fields in another order are the same request", async () => {
    const key = randomUUID();
    const post = async (fields: [string, string][]) =>
      serve(
        mocPage,
        new Request(new URL(`/mocs/${moc._id}?index`, BASE), {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Cookie: await sessionCookieHeader(await tokenOf(cast.originator)),
            Origin: BASE,
          },
          body: new URLSearchParams(fields).toString(),
        }),
        { id: moc._id },
      );
    const first = await post([
      ["intent", "chat"],
      ["message", "Fields in any order"],
      [IDEMPOTENCY_FIELD, key],
    ]);
    expect(first.status).toBe(302);
    const again = await post([
      [IDEMPOTENCY_FIELD, key],
      ["message", "Fields in any order"],
      ["intent", "chat"],
    ]);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await messagesSaying(moc.chat, "Fields in any order")).toBe(1);
  });

  it("a row kept under the previous SESSION_SECRET key still replays after a rotation", async () => {
    const key = randomUUID();
    const bodies = new Map<string, ReturnType<typeof chatBody>>();
    const send = (text: string) => {
      if (!bodies.has(text)) bodies.set(text, chatBody(cast.originator, moc.chat, text));
      return apiPost(chatRoute, cast.originator, { path: "/api/chat", body: bodies.get(text), key });
    };
    expect((await send("Before the rotation")).status).toBe(200);
    const before = process.env.SESSION_SECRET!;
    process.env.SESSION_SECRET = `a-new-first-key-0123456789-0123456789,${before}`;
    resetEnv();
    try {
      expect((await send("Before the rotation")).headers.get("Idempotent-Replayed")).toBe("true");
      expect((await send("After the rotation")).status).toBe(422);
    } finally {
      process.env.SESSION_SECRET = before;
      resetEnv();
    }
    expect(await messagesSaying(moc.chat, "Before the rotation")).toBe(1);
  });
});

describe("rows kept before decision 048 (migration 0036)", () => {
  it("removes kept sign-ins and tokens, and no old SHA-256 fingerprint stays or matches", async () => {
    const file = new URL("../../db/migrations/0036_idempotency_keys_without_credentials.sql", import.meta.url);
    const statements = readFileSync(file, "utf8").split("--> statement-breakpoint");
    const who = await makeUser();
    const body = chatBody(cast.originator, moc.chat, "Sent before the upgrade");
    const raw = JSON.stringify(body);
    const login = { key: randomUUID(), token: "eyJhbGciOiJIUzI1NiJ9.kept-before.signature" };
    const chat = randomUUID();
    const signed = randomUUID();
    const row = { userId: who._id, method: "POST", status: 200, headers: { "content-type": "application/json" } };
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
    await getDb()
      .insert(idempotencyKeys)
      .values([
        {
          ...row,
          key: login.key,
          path: "/login",
          fingerprint: sha256(`email=a%40b.c&password=${PASSWORD}`),
          body: json({ token: login.token, admin: false, onboarded: true }),
        },
        { ...row, key: chat, path: "/api/chat", fingerprint: unkeyedFingerprint("POST", "/api/chat", raw), body: "" },
        {
          ...row,
          key: signed,
          path: "/api/pcr/signatures",
          fingerprint: unkeyedFingerprint("POST", "/api/pcr/signatures", `{"password":"${PASSWORD}"}`),
          body: json({ status: 200, data: { _id: randomUUID() } }),
        },
      ]);
    for (const statement of statements) await getDb().execute(sql.raw(statement));
    const left = await getDb().select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, who._id));
    expect(left.map((r) => r.key).sort()).toEqual([chat, signed].sort());
    const kept = await storeText();
    expect(kept).not.toContain(login.token);
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/api/chat", raw));
    expect(kept).not.toContain(unkeyedFingerprint("POST", "/api/pcr/signatures", `{"password":"${PASSWORD}"}`));
    // The same request again: refused, never applied a second time.
    await getDb().update(idempotencyKeys).set({ userId: cast.originator._id }).where(eq(idempotencyKeys.key, chat));
    const again = await apiPost(chatRoute, cast.originator, { path: "/api/chat", body, key: chat });
    expect(again.status).toBe(422);
    expect(await messagesSaying(moc.chat, "Sent before the upgrade")).toBe(0);
  });
});
