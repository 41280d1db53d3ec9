/**
 * Findings of the security review (docs/security.md): password failure budgets for every password
 * check, per account and client address; the redirect after sign-in; control characters in names
 * and mail subjects; strict token decoding; the advisory lock registry; MOC access that follows the
 * current assignments; the HTTP answers of issue 40 (a busy PDF, no credentials, an unreachable
 * database). The ones only a listening server gives (TRACE, oversized headers): http-answers.test.ts.
 */
import { sql } from "drizzle-orm";
import express from "express";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorHandler } from "../../app/server/request-handler";
import { ADVISORY_LOCKS } from "#db/advisory-locks";
import { closeDb } from "#db/client";
import { emailMessages } from "#db/schema";
import { deliverEmail } from "#jobs/email";
import * as createImplementerRoute from "~/routes/api+/createImplementer";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as searchApiRoute from "~/routes/api+/search";
import * as myUserRoute from "~/routes/api+/myUser";
import * as healthzRoute from "~/routes/healthz";
import * as readyzRoute from "~/routes/readyz";
import * as mocPdfRoute from "~/routes/mocs+/$id_.pdf";
import * as pcrPdfRoute from "~/routes/pcrs+/$id_.pdf";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as userRoute from "~/routes/api+/user";
import * as usersRoute from "~/routes/api+/users";
import * as verifyRoute from "~/routes/api+/verify";
import * as profilePage from "~/routes/profile";
import { PASSWORD_BUDGETS } from "~/models/people/password-attempts.server";
import { slotGroup } from "~/models/shared/person-slots.server";
import { CLIENT_ADDRESS_HEADER, clientAddressHeader } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { logger } from "~/utils/logger.server";
import { renderEmail } from "~/utils/email-layout.server";
import { resetEnv } from "~/utils/env.server";
import { verifyToken } from "~/utils/token.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { postLogin } from "../helpers/login";
import { makeCast, mocAt, stepOk, tokenOf } from "../helpers/moc-flow";
import { implementerForm } from "../helpers/moc";
import { createPcrOk } from "../helpers/pcr";
import { buildRequest, call } from "../helpers/request";

const from = (address: string) => ({ [CLIENT_ADDRESS_HEADER]: clientAddressHeader(address) });
const login = (email: string, password: string, address = "198.51.100.1") =>
  postLogin({ email, password }, { json: true, headers: from(address) });
const verify = (email: string, password: string, address = "198.51.100.1") =>
  api(verifyRoute, { path: "/api/verify", query: { email, password }, headers: from(address) });
const changePassword = async (
  user: { _id: string },
  token: string,
  currentPassword: string,
  address = "198.51.100.1",
) =>
  api(userRoute, {
    method: "PATCH",
    path: "/api/user",
    token,
    headers: from(address),
    body: { password: "a-brand-new-password", currentPassword },
  });

describe("every password check spends one budget per account and address", () => {
  it("15 wrong current passwords to PATCH /api/user: 400 ten times, then 429, even for the right one", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await changePassword(user, token, `wrong-${i}-password`)).status);
    expect(statuses).toEqual([...Array(10).fill(400), ...Array(5).fill(429)]);
    const right = await changePassword(user, token, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.headers.get("Retry-After")).toMatch(/^\d+$/);
  });

  it("sign-in, /api/verify, the profile page and PATCH /api/user share it", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    for (let i = 0; i < 3; i++) expect((await login(user.email, "wrong-password")).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await verify(user.email, "wrong-password")).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await changePassword(user, token, "wrong-password")).status).toBe(400);
    // The profile page's password form.
    const form = new URLSearchParams({
      intent: "password",
      currentPassword: "wrong-password",
      password: "a-brand-new-password",
      confirm: "a-brand-new-password",
    });
    for (let i = 0; i < 2; i++) {
      const request = await buildRequest({
        method: "POST",
        path: "/profile",
        token,
        cookie: true,
        headers: { ...from("198.51.100.1"), "Content-Type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      // The page answers with data(...) and its status, as Remix renders it.
      const answer = (await profilePage.action({ request, params: {}, context: {} })) as { init: { status: number } };
      expect(answer.init.status).toBe(400);
    }
    // Ten spent: every kind of check is refused now, the right password too.
    expect((await login(user.email, PASSWORD)).status).toBe(429);
    expect((await verify(user.email, PASSWORD)).status).toBe(429);
    expect((await changePassword(user, token, PASSWORD)).status).toBe(429);
  });
});

describe("password changes under load", () => {
  it("more concurrent password changes than pool connections all finish (the budget is never spent inside the transaction)", async () => {
    const people = await Promise.all(Array.from({ length: 14 }, () => makeUser()));
    const tokens = await Promise.all(people.map((p) => tokenFor(p)));
    const results = await Promise.all(
      people.map((p, i) => changePassword(p, tokens[i]!, PASSWORD, `192.0.2.${i + 1}`)),
    );
    expect(results.map((r) => r.status)).toEqual(people.map(() => 200));
  }, 20_000);
});

describe("lockout per account and address, with ceilings across them", () => {
  it("ten failures lock the account from that address only", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) expect((await login(user.email, "wrong-password", "203.0.113.7")).status).toBe(401);
    expect((await login(user.email, PASSWORD, "203.0.113.7")).status).toBe(429);
    // The owner, elsewhere, signs in.
    expect((await login(user.email, PASSWORD, "192.0.2.44")).status).toBe(200);
  });

  it("an account takes at most 50 failures across addresses", async () => {
    const user = await makeUser();
    const { limit } = PASSWORD_BUDGETS.account;
    for (let i = 0; i < limit; i++) {
      expect((await verify(user.email, "wrong-password", `10.9.${Math.floor(i / 200)}.${i % 200}`)).status).toBe(401);
    }
    expect((await login(user.email, PASSWORD, "192.0.2.45")).status).toBe(429);
  });

  it("an address takes at most 50 failures across accounts (one password sprayed over many)", async () => {
    const { limit } = PASSWORD_BUDGETS.address;
    for (let i = 0; i < limit; i++) {
      expect((await verify(`sprayed-${i}-${randomUUID()}@example.com`, "Summer2026!", "203.0.113.99")).status).toBe(
        401,
      );
    }
    const target = await makeUser();
    expect((await login(target.email, PASSWORD, "203.0.113.99")).status).toBe(429);
    expect((await login(target.email, PASSWORD, "203.0.113.100")).status).toBe(200);
  });

  it("a header the client sets itself is not believed", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) {
      const res = await postLogin(
        { email: user.email, password: "wrong-password" },
        { json: true, headers: { [CLIENT_ADDRESS_HEADER]: `forged 198.18.0.${i}` } },
      );
      expect(res.status).toBe(401);
    }
    // All ten counted for the one unknown address.
    const res = await postLogin(
      { email: user.email, password: PASSWORD },
      { json: true, headers: { [CLIENT_ADDRESS_HEADER]: "forged 198.18.0.200" } },
    );
    expect(res.status).toBe(429);
  });
});

describe("redirect after sign-in", () => {
  it.each(["/\u2028/evil.example", "/caf\u00e9", "/x\u0085y", "/ /evil.example"])(
    "redirectTo %j: a session and a redirect to /, never a server error",
    async (redirectTo) => {
      const user = await makeUser();
      const res = await postLogin({ email: user.email, password: PASSWORD, redirectTo });
      expect(res.status).toBe(302);
      expect(res.location).toBe("/");
      expect(res.headers.get("Set-Cookie")).toMatch(/^session=/);
    },
  );
});

describe("control characters in names and mail headers", () => {
  it.each(["Eve\r\nBcc: victim@evil.example", "Eve\nBcc: x", "Tab\there", "Line\u2028sep", "Nul\u0000"])(
    "a name %j is refused with 400, on the profile and by an admin",
    async (name) => {
      const user = await makeUser();
      const own = await api(userRoute, {
        method: "PATCH",
        path: "/api/user",
        token: await tokenFor(user),
        body: { name },
      });
      expect(own.status).toBe(400);
      expect(own.body.issues.map((i: { path: string }) => i.path)).toContain("name");
      const admin = await makeAdmin();
      const created = await api(usersRoute, {
        method: "POST",
        path: "/api/users",
        token: await tokenFor(admin),
        body: { name, email: `cc-${randomUUID()}@example.com`, password: PASSWORD, department: "fleet" },
      });
      expect(created.status).toBe(400);
    },
  );

  it("a subject never carries a line break, whatever its source", () => {
    const rendered = renderEmail(
      {
        record: { label: "MOC 1-2026\r\nX-Injected: yes", url: "/mocs/x" },
        expectation: null,
        event: "Eve\r\nBcc: victim@evil.example made you the approver",
        subject: "Eve\r\nBcc: victim@evil.example\u2028x",
      },
      "Someone",
      "http://localhost:3000",
    );
    expect(rendered.subject).toBe("[MOC 1-2026 X-Injected: yes] Eve Bcc: victim@evil.example x");
  });

  describe("a stored subject with CR/LF, sent through Resend", () => {
    let fake: FakeResend;
    beforeAll(async () => {
      fake = await startFakeResend();
      process.env.RESEND_API_KEY = "re_test_key";
      process.env.RESEND_BASE_URL = fake.url;
      resetEnv();
    });
    afterAll(async () => {
      delete process.env.RESEND_API_KEY;
      delete process.env.RESEND_BASE_URL;
      resetEnv();
      await fake.close();
    });
    it("goes out on one line", async () => {
      const [row] = await getDb()
        .insert(emailMessages)
        .values({
          toEmail: "someone@example.com",
          subject: "Hi\r\nBcc: victim@evil.example",
          html: "<p>x</p>",
          text: "x",
        })
        .returning({ id: emailMessages.id });
      expect(await deliverEmail(row!.id)).toBe("sent");
      const sent = fake.deliveries.find((d) => d.to.includes("someone@example.com"))!;
      expect(sent.subject).toBe("Hi Bcc: victim@evil.example");
    });
  });
});

describe("session tokens decode base64url strictly", () => {
  it("a token with `=`, a stray character or a changed final bit is refused", async () => {
    const token = await tokenFor(await makeUser());
    expect(verifyToken(token).ok).toBe(true);
    const [header, payload, signature] = token.split(".");
    const last = signature!.at(-1)!;
    // A 32-byte signature leaves 2 unused bits in its last character: flip one of them.
    const sibling = "AEIMQUYcgkosw048"[("AEIMQUYcgkosw048".indexOf(last) + 1) % 16] ?? last;
    for (const variant of [
      `${token}=`,
      `${token}==`,
      `${header}.${payload}.${signature}.`,
      `${header}.${payload}=.${signature}`,
      `${header}.${payload}.${signature!.slice(0, -1)}${sibling}`,
      `${header}.${payload}.${signature!.slice(0, 10)}+${signature!.slice(11)}`,
    ]) {
      expect(verifyToken(variant), variant).toEqual({ ok: false, message: "Token claim validation failed" });
    }
  });
});

describe("advisory lock keys", () => {
  it("are unique", () => {
    const keys = Object.values(ADVISORY_LOCKS);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("come from the registry wherever the code takes one", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.tsx?$/.test(name)) files.push(full);
      }
    };
    for (const dir of ["app", "db", "jobs"]) walk(dir);
    const offenders: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const call = line.match(/pg_(try_)?advisory_(xact_)?lock(_shared)?\((.*?)\)/);
          if (call && !/^\$\{[A-Z_]+(_LOCK)?\}$|^\$\{ADVISORY_LOCKS\.\w+\}$/.test(call[4]!.trim())) {
            offenders.push(`${file}:${i + 1}: ${line.trim()}`);
          }
        });
      // A constant named *_LOCK must be taken from the registry.
      for (const match of readFileSync(file, "utf8").matchAll(/const [A-Z_]+_LOCK = (.*);/g)) {
        if (!match[1]!.startsWith("ADVISORY_LOCKS.")) offenders.push(`${file}: ${match[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("taken in SQL migrations, are keys of the registry", () => {
    const keys = new Set<number>(Object.values(ADVISORY_LOCKS));
    const taken: string[] = [];
    for (const name of readdirSync("db/migrations").filter((f) => f.endsWith(".sql"))) {
      for (const match of readFileSync(path.join("db/migrations", name), "utf8").matchAll(
        /pg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\((\d+)/g,
      )) {
        taken.push(`${name}: ${match[1]}`);
        expect(keys, `${name} takes advisory lock ${match[1]}`).toContain(Number(match[1]));
      }
    }
    expect(taken.length).toBeGreaterThan(0);
  });
});

describe("MOC access follows the current assignments", () => {
  it("an approver named in a Part B draft and replaced on submission stops reading the MOC", async () => {
    const cast = await makeCast();
    const stand_in = await makeUser({ name: "Sam Standin", department: "fleet" });
    const moc = await mocAt("b", cast);
    const read = async (who: { _id: string }) =>
      (await api(singlemocRoute, { path: "/api/singlemoc", query: { moc_id: moc._id }, token: await tokenOf(who) }))
        .status;

    const draft = await api(createImplementerRoute, {
      method: "POST",
      path: "/api/createImplementer",
      token: await tokenOf(cast.implementer),
      body: { moc_id: moc._id, implementer_form: { "approver-name": { value: stand_in._id } } },
    });
    expect(draft.status, draft.text).toBe(200);
    expect(await read(stand_in)).toBe(200);

    const submitted = await stepOk("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(cast.approver, cast.hseq),
    });
    expect(submitted.approver_id._id).toBe(cast.approver._id);
    expect(submitted.all_users.map((u: { _id: string }) => u._id)).not.toContain(stand_in._id);
    expect(await read(stand_in)).toBe(403);
    expect(await read(cast.approver)).toBe(200);
    // The audit trail still says who was assigned when.
    const actions = submitted.logs.map((l: { action: string }) => l.action);
    expect(actions).toContain(`Saved Part B as a draft and assigned ${stand_in.name} as the approver`);
  });
});

describe("HTTP answers (issue 40)", () => {
  describe("a PDF asked for while the person's previous one is still being made", () => {
    // The same slots the PDF worker takes (app/models/shared/person-slots.server.ts): held here, the next
    // PDF of that person is refused as a second concurrent one is, without racing a real PDF.
    const pdfSlots = slotGroup("record-pdf", () => "held by the test");
    const BUSY = "A PDF you asked for is still being made; wait for it to finish, then try again";

    it.each([
      ["a MOC", "mocs", mocPdfRoute],
      ["a PCR", "pcrs", pcrPdfRoute],
    ] as const)(
      "of %s: 429 with Retry-After and the message, a page for a browser, JSON for a client",
      async (_, kind, route) => {
        const cast = await makeCast();
        const id = kind === "mocs" ? (await mocAt("b", cast))._id : (await createPcrOk(cast.originator))._id;
        const token = await tokenOf(cast.originator);
        const release = pdfSlots.acquire(cast.originator._id, { perUser: 1, overall: 4 });
        try {
          const ask = (accept: string) =>
            call(route, {
              path: `/${kind}/${id}/pdf`,
              params: { id },
              token,
              cookie: true,
              headers: { Accept: accept },
            });
          const page = await ask("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
          expect(page.status).toBe(429);
          expect(page.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
          expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
          expect(page.text).toMatch(/^<!doctype html>/);
          expect(page.text).toContain(BUSY);
          const json = await ask("application/json");
          expect(json.status).toBe(429);
          expect(json.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
          expect(json.body).toEqual({ status: 429, message: BUSY });
        } finally {
          release();
        }
        // Once the first is done, the PDF is made.
        const made = await call(route, { path: `/${kind}/${id}/pdf`, params: { id }, token, cookie: true });
        expect(made.status).toBe(200);
        expect(made.headers.get("Content-Type")).toBe("application/pdf");
      },
      60_000,
    );
  });

  describe("an /api call without credentials", () => {
    it("is 401 'Sign in first'; a refused token keeps its message, GET /api/myUser the contract's", async () => {
      // requireApiUser and requireApiUserWith (a list's fingerprint in the session lookup) alike.
      for (const [route, path] of [
        [searchApiRoute, "/api/search"],
        [getAllMocRoute, "/api/getAllMoc"],
      ] as const) {
        const none = await api(route, { path, query: { q: "pump" } });
        expect(none.status).toBe(401);
        expect(none.body).toEqual({ status: 401, message: "Sign in first" });
      }
      const refused = await api(searchApiRoute, { path: "/api/search", query: { q: "pump" }, token: "not-a-token" });
      expect(refused.body).toEqual({ status: 401, message: "Token claim validation failed" });
      const myUser = await api(myUserRoute, { path: "/api/myUser" });
      expect(myUser.body).toEqual({ status: 401, message: "Token claim validation failed" });
    });
  });

  describe("an unreachable database", () => {
    const reachable = process.env.DATABASE_URL!;
    let token: string;
    beforeAll(async () => {
      token = await tokenFor(await makeUser());
      // Nothing listens on port 1: every connection is refused, as with a stopped server.
      await closeDb();
      process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:1/stopped";
    });
    afterAll(async () => {
      await closeDb();
      process.env.DATABASE_URL = reachable;
    });

    it("/healthz still answers 200 (the process lives); /readyz answers 503 with the reason", async () => {
      const live = await call(healthzRoute, { path: "/healthz" });
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: "ok" });
      const ready = await call(readyzRoute, { path: "/readyz" });
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: "unavailable", database: "unavailable" });
    });

    it("met before a route runs (the HTTP layer's error handler), it is a 503 too: JSON under /api, a page elsewhere", async () => {
      const app = express();
      app.use((_req, res, next) => {
        getDb()
          .execute(sql`select 1`)
          .then(() => res.end(), next);
      });
      app.use(errorHandler(logger()));
      const listening = app.listen(0, "127.0.0.1");
      await once(listening, "listening");
      try {
        const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
        const json = await fetch(`${base}/api/newmoc`, { method: "POST" });
        expect(json.status).toBe(503);
        expect(json.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
        expect(await json.json()).toEqual({
          status: 503,
          message: "The database cannot be reached just now; try again in a moment",
        });
        const page = await fetch(`${base}/mocs`);
        expect(page.status).toBe(503);
        expect(await page.text()).toMatch(/<h1>503<\/h1>.*cannot be reached/s);
      } finally {
        listening.close();
      }
    });

    it("an /api call is 503 with Retry-After and the message, not a 500", async () => {
      const res = await api(getAllMocRoute, { path: "/api/getAllMoc", token });
      expect(res.status, res.text).toBe(503);
      expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
      expect(res.body).toEqual({
        status: 503,
        message: "The database cannot be reached just now; try again in a moment",
      });
    });
  });
});
