/**
 * The contract: the real server (app/server/main.ts, production mode, on an ephemeral port and a
 * database of this test's own) is driven over HTTP through every operation of its own
 * /api/openapi.json (and the sign-in it documents) as the right person, and each real answer's
 * status, content type and body are validated against the document with Ajv
 * (docs/decisions/031-api-contract.md). An answer with a status the operation does not list, a
 * content type it does not list, or a body that does not match fails; so does an operation whose
 * success answer the run never saw (the last test). Besides the successes: every signed-in
 * operation without credentials (401), every body that is not JSON (400), and the 304, 403, 404,
 * 409 and 413 answers a client meets most. People and records in the states a scenario needs are
 * made in this process, on the same database.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { closeDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { resetEnv } from "~/utils/env.server";
import type { PublicUser } from "~/models/people/user.server";
import { createAppDatabase, dropDatabase, originalProcess } from "../helpers/databases";
import { PASSWORD, makeAdmin, makeUser } from "../helpers/factories";
import type { Cast, Doc } from "../helpers/moc";
import { resolution, verifierForm } from "../helpers/moc";
import { defaultStepBody, makeCast, mocAt, temporaryMocAt, tokenOf } from "../helpers/moc-flow";
import { chainWith, createPcrOk, makeHolders, pcrBody, signChain } from "../helpers/pcr";
import { ensureProductionBuild, startRealServer, type RealServer } from "../helpers/real-server";
import { sessionCookieHeader, type CallResult } from "../helpers/request";
import type { Answer } from "../helpers/api-types-use";

type Method = "get" | "post" | "put" | "patch" | "delete";
type Json = Record<string, unknown>;
type Response = { $ref?: string; content?: Record<string, { schema?: object }> };
type OperationObject = { operationId: string; responses: Record<string, Response> };
type Document = { paths: Record<string, Record<Method, OperationObject>>; components: Json };

// ---------------------------------------------------------------------------------------------
// The server, its database and its document

const serverUrl = inject("dbServerUrl");
const database = `cm_contract_${randomBytes(5).toString("hex")}`;
let server: RealServer;
let doc: Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** A host serving one image (and a broken one) for GET /api/proxy; the server is told to allow it. */
let imageHost: Server;
let imageBase = "";
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==",
  "base64",
);

let cast: Cast;
let admin: PublicUser;
let standard: PublicUser;

beforeAll(async () => {
  imageHost = createServer((req, res) => {
    if (req.url === "/deck.png") res.writeHead(200, { "Content-Type": "image/png" }).end(PNG);
    else res.writeHead(500, { "Content-Type": "text/plain" }).end("broken");
  });
  await new Promise<void>((resolve) => imageHost.listen(0, "127.0.0.1", resolve));
  imageBase = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;

  // This process makes people and records on the server's own database, as the app's role.
  await stopBoss();
  await closeDb();
  process.env.DATABASE_URL = await createAppDatabase(serverUrl, database);
  resetEnv();
  await ensureProductionBuild();
  server = await startRealServer({
    DATABASE_URL: process.env.DATABASE_URL,
    IMAGE_PROXY_ALLOWED_HOSTS: imageBase.slice("http://".length),
    // GET /api/floor answers only on a server a benchmark starts (tests/integration/api-answers.test.ts has its 404).
    BENCH_FLOOR: "1",
  });
  // Its journeys follow the original spec's process (tests/helpers/databases.ts `originalProcess`).
  await originalProcess(process.env.DATABASE_URL);
  // The document the server itself serves.
  const res = await fetch(`${server.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Document;
  ajv.addSchema(doc, "openapi");
  [cast, admin, standard] = await Promise.all([makeCast(), makeAdmin(), makeUser({ department: "operations" })]);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => imageHost?.close(resolve));
  await stopBoss();
  await closeDb();
  await dropDatabase(serverUrl, database);
}, 60_000);

// ---------------------------------------------------------------------------------------------
// Calling an operation and checking its answer

/** Statuses each operation answered in this run, by `METHOD path`. */
const seen = new Map<string, Set<number>>();
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Checks one real answer against the document; returns what is wrong, or nothing. */
function mismatch(method: Method, path: string, res: CallResult): string | null {
  const op = doc.paths[path]?.[method];
  if (!op) return `${method.toUpperCase()} ${path} is not in the document`;
  let response = op.responses[String(res.status)];
  let base = `openapi#/paths/${pointer(path)}/${method}/responses/${res.status}`;
  if (!response)
    return `status ${res.status} is not documented (${Object.keys(op.responses).join(", ")}): ${res.text.slice(0, 300)}`;
  if (response.$ref) {
    base = `openapi${response.$ref}`;
    response = (doc.components.responses as Record<string, Response>)[response.$ref.split("/").pop()!]!;
  }
  if (!response.content) return res.text === "" ? null : `status ${res.status} is documented without a body`;
  const type = (res.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
  const mediaType = Object.keys(response.content).find(
    (m) => m === type || (m.endsWith("/*") && type.startsWith(m.slice(0, -1))),
  );
  if (!mediaType) return `content type ${type} is not documented (${Object.keys(response.content).join(", ")})`;
  if (mediaType !== "application/json") return null;
  const validate = ajv.getSchema(`${base}/content/${pointer(mediaType)}/schema`);
  if (!validate) return `no schema at ${base}`;
  if (validate(res.body)) return null;
  return `body does not match: ${ajv.errorsText(validate.errors, { separator: "\n  " })}\n  ${res.text.slice(0, 400)}`;
}

type Exercise = {
  as?: { _id: string } | null;
  query?: Record<string, string>;
  params?: Record<string, string>;
  headers?: Record<string, string>;
  /** A value sent as JSON, or a string sent as it is. */
  body?: unknown;
};

/** One request to the real server; a JSON answer is parsed into `body`. */
async function send(method: Method, path: string, options: Exercise): Promise<CallResult> {
  const url = new URL(path, server.url);
  for (const [k, value] of Object.entries(options.query ?? {})) url.searchParams.set(k, value);
  const headers = new Headers(options.headers);
  if (options.as) headers.set("Authorization", `Bearer ${await tokenOf(options.as)}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const res = await fetch(url, { method: method.toUpperCase(), headers, body, redirect: "manual" });
  const text = await res.text();
  let parsed: unknown;
  if ((res.headers.get("Content-Type") ?? "").includes("json") && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * Calls `method path` (path parameters in `params`) on the server as `as` and checks the answer
 * against the document; `expected` is the status the scenario means to get.
 */
async function exercise<T = Json>(
  method: Method,
  path: string,
  expected: number,
  options: Exercise = {},
): Promise<CallResult & { body: T }> {
  const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => options.params?.[name] ?? "");
  const res =
    path === "/login"
      ? await send(method, path, {
          ...options,
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Accept: "application/json",
            ...options.headers,
          },
        })
      : await send(method, concrete, options);
  const key = `${method.toUpperCase()} ${path}`;
  expect(mismatch(method, path, res), key).toBeNull();
  // What the scenario sends to succeed is a body the document allows.
  if (res.status < 300 && options.body && typeof options.body === "object" && path !== "/login") {
    const validate = ajv.getSchema(
      `openapi#/paths/${pointer(path)}/${method}/requestBody/content/application~1json/schema`,
    );
    expect(validate, `${key} documents no JSON body`).toBeDefined();
    expect(validate!(options.body) ? null : ajv.errorsText(validate!.errors), `${key} request body`).toBeNull();
  }
  expect(res.status, `${key}: ${res.text.slice(0, 300)}`).toBe(expected);
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(res.status);
  return res as CallResult & { body: T };
}

// ---------------------------------------------------------------------------------------------
// People and records

const v = (value: unknown) => ({ value });

describe("the contract of every operation", () => {
  it("sign-in and users", async () => {
    const signIn = await exercise<Answer<"/login", "post">>("post", "/login", 200, {
      body: new URLSearchParams({ email: standard.email, password: PASSWORD }).toString(),
    });
    expect(signIn.body.token.length).toBeGreaterThan(20);
    await exercise("post", "/login", 401, {
      body: new URLSearchParams({ email: standard.email, password: "wrong-password-1" }).toString(),
    });
    await exercise("post", "/login", 400, { body: new URLSearchParams({ email: "nobody" }).toString() });

    await exercise("get", "/api/verify", 200, { query: { email: standard.email, password: PASSWORD } });
    await exercise("get", "/api/verify", 401, { query: { email: standard.email, password: "wrong-password-2" } });
    await exercise("post", "/api/verify", 200, { body: { email: standard.email, password: PASSWORD } });
    // Another site cannot spend the account's failure budget through a visitor's browser.
    await exercise("post", "/api/verify", 403, {
      body: { email: standard.email, password: "wrong-password-3" },
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    await exercise("get", "/api/myUser", 200, { as: standard });
    await exercise("get", "/api/user", 200, { as: cast.implementer });
    await exercise("patch", "/api/user", 200, {
      as: standard,
      body: { email: standard.email, currentPassword: PASSWORD },
    });
    // Only admins change a display name (docs/decisions/026-four-eyes-by-record.md).
    await exercise("patch", "/api/user", 403, { as: standard, body: { name: "Sam Standard" } });
    await exercise("patch", "/api/user", 403, { as: standard, body: { role: "admin" } });
    await exercise("get", "/api/UserFromDatabase", 200, { as: standard });
    await exercise("put", "/api/UserFromDatabase", 200, {
      as: standard,
      body: { email: standard.email, currentPassword: PASSWORD },
    });

    await exercise("get", "/api/users", 200, { as: standard, query: { search: "Sam" } });
    const email = `contract-${Date.now()}@example.com`;
    const created = await exercise<Answer<"/api/users", "post", 201>>("post", "/api/users", 201, {
      as: admin,
      body: { name: "Contract Person", email, password: "contract-pass-1", department: "fleet" },
    });
    await exercise("post", "/api/users", 409, {
      as: admin,
      body: { name: "Contract Person", email, password: "contract-pass-1", department: "fleet" },
    });
    await exercise("post", "/api/users", 403, {
      as: standard,
      body: { name: "X", email: `x-${email}`, password: "contract-pass-1", department: "fleet" },
    });
    await exercise("put", "/api/users", 200, { as: admin, body: { _id: created.body.data._id, access: "full" } });
    await exercise("put", "/api/users", 404, { as: admin, body: { _id: crypto.randomUUID(), name: "Nobody" } });
    await exercise("delete", "/api/users", 200, { as: admin, body: { _id: created.body.data._id } });
  });

  it("MOCs: lists, reads, plans, clones and deletion", async () => {
    const made = await exercise<Answer<"/api/newmoc", "post">>("post", "/api/newmoc", 200, {
      as: cast.originator,
      body: newMocBody(),
    });
    const moc = made.body.data;
    await exercise("post", "/api/newImplementer", 200, { as: cast.originator, body: newMocBody() });
    for (const path of ["/api/newmoc", "/api/getAllMoc"] as const) {
      const all = await exercise("get", path, 200, { as: admin });
      const etag = all.headers.get("ETag");
      expect(etag).toBeTruthy();
      await exercise("get", path, 304, { as: admin, headers: { "If-None-Match": etag! } });
      const page = await exercise("get", path, 200, { as: admin, query: { limit: "1" } });
      expect(page.headers.get("Link")).toMatch(/rel="next"$/);
      await exercise("get", path, 400, { as: admin, query: { limit: "0" } });
      await exercise("get", path, 200, { as: admin, headers: { Accept: "text/csv" } });
    }
    await exercise("get", "/api/singlemoc", 200, { as: cast.originator, query: { moc_id: moc._id } });
    await exercise("get", "/api/singlemoc", 404, { as: cast.originator, query: { moc_id: crypto.randomUUID() } });
    await exercise("get", "/api/singlemoc", 403, { as: standard, query: { moc_id: moc._id } });
    await exercise("post", "/api/addUser", 200, {
      as: cast.originator,
      body: { userId: cast.verifier._id, mocId: moc._id, role: "verifier" },
    });
    const draft = { moc_id: moc._id, implementer_form: { "approver-name": v({ _id: cast.approver._id }) } };
    await exercise("post", "/api/createImplementer", 200, { as: cast.implementer, body: draft });
    await exercise("post", "/api/implementer", 200, { as: cast.implementer, body: draft });
    await exercise("get", "/api/implementer", 200, { as: cast.implementer, query: { moc_id: moc._id } });
    await exercise("post", "/api/impact", 200, {
      as: cast.implementer,
      body: { moc_id: moc._id, impact_assessment: [{ category: "Safety", hazards: ["Slips"] }] },
    });
    await exercise("post", "/api/risk_assessment", 200, {
      as: cast.implementer,
      body: { moc_id: moc._id, risk_assessment: "https://files.example.com/risk.pdf" },
    });
    const planned = await exercise<Answer<"/api/actionTable", "post">>("post", "/api/actionTable", 200, {
      as: cast.implementer,
      body: { id: moc._id, action: { items: [{ description: "Order parts", owner: null, due: null, done: false }] } },
    });
    await exercise("post", "/api/cancelPlanItem", 200, {
      as: cast.implementer,
      body: {
        moc_id: moc._id,
        plan: "action",
        item_id: planned.body.data.action.items[0]!._id,
        reason: "The parts are on board",
      },
    });
    await exercise("post", "/api/manualsPlan", 200, {
      as: cast.implementer,
      body: { id: moc._id, manual_plan: { items: [{ document: "Ops manual 4.2", change: "New pump section" }] } },
    });
    // Actions as tasks (docs/decisions/038-actions-as-tasks.md): an item of the implementer's own.
    const owned = await exercise<Answer<"/api/actionTable", "post">>("post", "/api/actionTable", 200, {
      as: cast.implementer,
      body: {
        id: moc._id,
        action: {
          items: [{ description: "Fit the sensor", owner: cast.implementer._id, due: "2030-01-31", done: false }],
        },
      },
    });
    await exercise("get", "/api/myActions", 200, { as: cast.implementer });
    const doneBody = { moc_id: moc._id, plan: "action", item_id: owned.body.data.action.items[0]!._id, note: "Fitted" };
    await exercise("post", "/api/actionDone", 403, { as: standard, body: doneBody });
    await exercise("post", "/api/actionDone", 400, { as: cast.implementer, body: { ...doneBody, plan: "nope" } });
    await exercise("post", "/api/actionDone", 404, { as: cast.implementer, body: { ...doneBody, item_id: "none" } });
    await exercise("post", "/api/actionDone", 200, { as: cast.implementer, body: doneBody });
    await exercise("post", "/api/actionDone", 409, { as: cast.implementer, body: doneBody });
    // Trainings (docs/decisions/056-training.md): an action made a training, its attendance once approved.
    let trained = (
      await exercise<Answer<"/api/actionTable", "post">>("post", "/api/actionTable", 200, {
        as: cast.implementer,
        body: { id: (await mocAt("b", cast))._id, action: { items: [{ description: "Pump drill", owner: null }] } },
      })
    ).body.data as Doc;
    const course = { moc_id: trained._id, item_id: trained.action.items[0]._id };
    await exercise("post", "/api/training", 403, { as: standard, body: { ...course, attendees: [standard._id] } });
    await exercise("post", "/api/training", 400, { as: cast.implementer, body: { ...course, attendees: ["x"] } });
    await exercise("post", "/api/training", 404, {
      as: cast.implementer,
      body: { ...course, item_id: "none", attendees: [] },
    });
    await exercise("post", "/api/training", 200, {
      as: cast.implementer,
      body: { ...course, attendees: [standard._id] },
    });
    const attendance = { ...course, attendees: [standard._id], date: new Date().toISOString().slice(0, 10) };
    await exercise("post", "/api/trainingAttendance", 409, { as: cast.implementer, body: attendance });
    for (const [name, by] of [
      ["implementer", cast.implementer],
      ["hseq", cast.hseq],
      ["approver", cast.approver],
    ] as const) {
      trained = (
        await exercise<Answer<"/api/submit/hseq", "post">>("post", `/api/submit/${name}`, 200, {
          as: by,
          body: defaultStepBody(name, trained, cast),
        })
      ).body.data as Doc;
    }
    await exercise("post", "/api/trainingAttendance", 403, { as: standard, body: attendance });
    await exercise("post", "/api/trainingAttendance", 400, {
      as: cast.implementer,
      body: { ...attendance, date: "2999-01-01" },
    });
    await exercise("post", "/api/trainingAttendance", 404, {
      as: cast.implementer,
      body: { ...attendance, item_id: "none" },
    });
    await exercise("post", "/api/trainingAttendance", 200, { as: cast.implementer, body: attendance });
    const other = await makeUser({ department: "fleet" });
    await exercise("put", "/api/implementer", 200, {
      as: cast.originator,
      body: { moc_id: moc._id, implementer_id: other._id },
    });
    await exercise("post", "/api/cloneMoc", 200, { as: cast.originator, body: { old_moc: { _id: moc._id } } });
    await exercise("delete", "/api/deleteMoC", 200, { as: cast.originator, query: { id: moc._id } });
    await exercise("delete", "/api/deleteMoC", 404, { as: cast.originator, query: { id: crypto.randomUUID() } });
    await exercise("post", "/api/restoreMoc", 403, { as: standard, body: { moc_id: moc._id } });
    await exercise("post", "/api/restoreMoc", 200, { as: admin, body: { moc_id: moc._id } });
    await exercise("post", "/api/restoreMoc", 409, { as: admin, body: { moc_id: moc._id } });
  });

  it("the pipeline: every step's answer", async () => {
    const step = (name: string, as: { _id: string }, moc: Doc, body = defaultStepBody(name as never, moc, cast)) =>
      exercise<Answer<"/api/submit/hseq", "post">>("post", `/api/submit/${name}`, 200, { as, body });
    const draft = await mocAt("a", cast);
    await step("originator", cast.originator, draft);
    let moc = await mocAt("b", cast);
    moc = (await step("implementer", cast.implementer, moc)).body.data;
    await exercise("post", "/api/submit/implementer", 409, {
      as: cast.implementer,
      body: defaultStepBody("implementer", moc, cast),
    });
    moc = (await step("hseq", cast.hseq, moc)).body.data;
    moc = (await step("approver", cast.approver, moc)).body.data;
    moc = (await step("implementation", cast.implementer, moc)).body.data;
    moc = (await step("verifier-return", cast.hseq, moc)).body.data;
    moc = (await step("implementation", cast.implementer, moc)).body.data;
    await step("verifier", cast.hseq, moc);
    const deviation = await mocAt("b-deviation", cast);
    const decided = await exercise<Answer<"/api/submit/deviation-extention", "post">>(
      "post",
      "/api/submit/deviation-extention",
      200,
      { as: cast.hseq, body: resolution(deviation, "deviation") },
    );
    await exercise("post", "/api/reportCompletion", 409, {
      as: cast.implementer,
      body: { moc_id: moc._id, completion_date: "2026-01-05", note: "Done" },
    });
    await exercise("post", "/api/reportCompletion", 200, {
      as: cast.implementer,
      body: {
        moc_id: decided.body.data._id,
        completion_date: "2026-01-05",
        note: "Done as approved with the deviation",
      },
    });
    const restored = await temporaryMocAt("restoration-reported", cast);
    await step("temporary-confirm", cast.hseq, restored);
    const inEffect = await temporaryMocAt("in-effect", cast);
    await step("temporary-restored", cast.implementer, inEffect);
    const another = await temporaryMocAt("in-effect", cast);
    await step("temporary-permanent", cast.implementer, another);
    const third = await temporaryMocAt("in-effect", cast);
    const asked = (await step("temporary-extension", cast.implementer, third)).body.data;
    await step("temporary-extension-decision", cast.approver, asked);
  });

  it("PCRs: creation, edits, lists, signatures, clones and deletion", async () => {
    const originator = await makeUser();
    const party = await makeUser();
    const created = await exercise<Answer<"/api/pcr", "post">>("post", "/api/pcr", 200, {
      as: originator,
      body: pcrBody({ parties: [party] }),
    });
    const pcr = created.body.data;
    await exercise("put", "/api/pcr", 200, {
      as: originator,
      query: { id: pcr._id },
      body: { form: { "safety-critical": true } },
    });
    await exercise("get", "/api/pcr/{id}", 200, { as: originator, params: { id: pcr._id } });
    await exercise("get", "/api/pcr/{id}", 404, { as: originator, params: { id: crypto.randomUUID() } });
    await exercise("get", "/api/singlePcr", 200, { as: originator, query: { id: pcr._id } });
    for (const path of ["/api/allPcr", "/api/getAllPcr"] as const) {
      await exercise("get", path, 200, { as: admin });
      await exercise("get", path, 200, { as: admin, query: { limit: "1" } });
      await exercise("get", path, 200, { as: admin, query: { format: "csv" } });
    }
    await exercise("get", "/api/pcr/summary", 200, { as: originator });
    const signed = await exercise<Answer<"/api/pcr/signatures", "post">>("post", "/api/pcr/signatures", 200, {
      as: originator,
      body: {
        pcrId: pcr._id,
        signatures: await chainWith(pcr._id, "Change Originator", { signature: originator.name }),
        password: PASSWORD,
      },
    });
    expect(signed.body.data.signatures[0]!.signatureDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await exercise("put", "/api/pcr", 409, {
      as: admin,
      query: { id: pcr._id },
      body: { form: { "new-suggestion": true } },
    });
    await exercise("post", "/api/pcr/affectedParties", 200, {
      as: party,
      body: { pcrId: pcr._id, affectedParties: [{ Name: { value: party._id }, Signature: party.name, Comments: "" }] },
    });
    await exercise("post", "/api/clonePcr", 200, { as: originator, body: { old_pcr: { serial_num: pcr.serial_num } } });
    const fresh = await exercise<Answer<"/api/pcr", "post">>("post", "/api/pcr", 200, {
      as: originator,
      body: pcrBody(),
    });
    await exercise("delete", "/api/pcr", 200, { as: originator, query: { id: fresh.body.data._id } });
    // A signed PCR is withdrawn, never deleted (docs/decisions/026-four-eyes-by-record.md).
    await exercise("delete", "/api/pcr", 409, { as: originator, query: { id: pcr._id } });
    await exercise("post", "/api/pcr/withdraw", 200, {
      as: originator,
      body: { pcrId: pcr._id, reason: "Superseded by the new bunkering procedure" },
    });
    await exercise("post", "/api/pcr/withdraw", 404, {
      as: originator,
      body: { pcrId: crypto.randomUUID(), reason: "Superseded by the new bunkering procedure" },
    });
    // A position holder's own PCR: an admin names who signs their position's slot (item 19).
    const vp = await makeUser({ position: "VP Fleet Management" });
    const stand = await makeUser({ department: "fleet" });
    const own = await exercise<Answer<"/api/pcr", "post">>("post", "/api/pcr", 200, { as: vp, body: pcrBody() });
    await exercise("post", "/api/pcr/substitute", 200, {
      as: admin,
      body: { pcrId: own.body.data._id, role: "VP Fleet Management", userId: stand._id },
    });
    await exercise("post", "/api/pcr/substitute", 409, {
      as: admin,
      body: { pcrId: pcr._id, role: "VP Fleet Management", userId: stand._id },
    });
  });

  it("chat", async () => {
    const moc = await mocAt("b", cast);
    await exercise("get", "/api/chat", 200, { as: cast.originator, query: { chat_id: moc.chat } });
    await exercise("post", "/api/chat", 200, {
      as: cast.originator,
      body: { chat_id: moc.chat, message: { message: "Parts ordered" } },
    });
    await exercise("get", "/api/chat", 404, { as: cast.originator, query: { chat_id: crypto.randomUUID() } });
  });

  it("the legacy archive", async () => {
    for (const [base, own] of [
      ["/api/oldMoc", { description: "Bilge pump replacement", department: "Engineering" }],
      ["/api/oldPcr", { procedure: "Ballast procedure 3.1" }],
    ] as const) {
      const body = {
        serial_num: `${Math.floor(Math.random() * 1e6)}-2014`,
        title: "Bilge pump replacement",
        ...own,
        originator_name: "Jan de Vries",
        date_raised: "2014-03-02",
        date_closed: "2014-05-20",
        status: "closed",
        attachments: ["https://files.example.com/moc/12-2014.pdf"],
        notes: "Scanned from the 2014 binder",
      };
      const created = await exercise<Answer<"/api/oldMoc", "post">>("post", base, 200, { as: admin, body });
      const id = created.body.data._id;
      await exercise("post", base, 403, { as: standard, body });
      await exercise("get", base, 200, { as: standard });
      await exercise("get", base, 200, { as: standard, query: { format: "csv" } });
      await exercise("put", base, 200, { as: admin, body: { ...body, _id: id, title: "Replaced" } });
      await exercise("get", `${base}/{id}`, 200, { as: standard, params: { id } });
      await exercise("get", `${base}/{id}`, 404, { as: standard, params: { id: crypto.randomUUID() } });
      await exercise("patch", `${base}/{id}`, 200, { as: admin, params: { id }, body: { notes: "Patched" } });
      await exercise("delete", base, 200, { as: admin, query: { id } });
    }
  });

  it("search", async () => {
    const found = await exercise<Answer<"/api/search", "get">>("get", "/api/search", 200, {
      as: admin,
      query: { q: "ballast pump" },
    });
    expect(found.body.data.mocs.total).toBeGreaterThan(0);
    expect(found.body.data.mocs.results[0]!.excerpt.some((part: { match: boolean }) => part.match)).toBe(true);
    await exercise("get", "/api/search", 200, { as: standard, query: { q: "MOC 1-2014" } });
    await exercise("get", "/api/search", 400, { as: standard, query: { q: "" } });
  });

  it("reports: insights, year-end reviews and reminders", async () => {
    await exercise("get", "/api/insights", 200, { as: admin, query: { from: "2026-01-01", to: "2026-06-30" } });
    await exercise("get", "/api/insights", 200, {
      as: admin,
      query: { from: "2026-01-01", to: "2026-06-30", format: "csv", table: "monthly" },
    });
    await exercise("get", "/api/insights", 403, { as: standard });
    await exercise("get", "/api/reviewPack", 200, { as: admin, query: { from: "2026-01-01", to: "2026-06-30" } });
    await exercise("get", "/api/reviewPack", 400, { as: admin, query: { from: "2026-06-30", to: "2026-01-01" } });
    await exercise("get", "/api/reviewPack", 403, { as: standard });
    const review = {
      year: 1991,
      title: "Year-end review 1991",
      sections: [{ heading: "Overview", body: "<p>The year</p>" }],
      participants: [admin._id],
      effectiveness: "<p>Mostly effective</p>",
      improvements: "<p>Faster approvals</p>",
      issues: "<p>Late verifications</p>",
      actions: [{ description: "Train the verifiers", owner: admin._id, due: "1992-03-31", status: "open" }],
    };
    const created = await exercise<Answer<"/api/year-end-review", "post">>("post", "/api/year-end-review", 200, {
      as: admin,
      body: review,
    });
    await exercise("get", "/api/year-end-review", 200, { as: admin });
    await exercise("get", "/api/year-end-review", 200, { as: admin, query: { id: created.body.data._id } });
    await exercise("put", "/api/year-end-review", 200, {
      as: admin,
      query: { id: created.body.data._id },
      body: { ...review, title: "Year-end review 1991 (final)" },
    });
    await exercise("get", "/api/auto_reminder", 200, { as: admin });
    await exercise("get", "/api/auto_reminder", 403, { as: standard });
  });

  it("vessels and crew assignments", async () => {
    const vessel = await exercise<Answer<"/api/vessels", "post">>("post", "/api/vessels", 200, {
      as: admin,
      body: { name: "MV Contract", imo: "9074729", ship_type: "Tanker", flag: "Malta" },
    });
    const id = vessel.body.data._id;
    await exercise("post", "/api/vessels", 400, { as: admin, body: { name: "MV Bad", imo: "9074728" } });
    await exercise("post", "/api/vessels", 409, { as: admin, body: { name: "MV Again", imo: "9074729" } });
    await exercise("post", "/api/vessels", 403, { as: standard, body: { name: "MV Other", imo: "9321483" } });
    await exercise("get", "/api/riskSettings", 200, { as: standard });
    await exercise("put", "/api/riskSettings", 403, { as: standard, body: { rankingRequired: false } });
    await exercise("put", "/api/riskSettings", 400, { as: admin, body: { rankingRequired: "no" } });
    await exercise("put", "/api/riskSettings", 200, { as: admin, body: { rankingRequired: false } });
    await exercise("get", "/api/vessels", 200, { as: standard });
    await exercise("get", "/api/vessels", 200, { as: standard, query: { id } });
    await exercise("get", "/api/vessels", 404, { as: standard, query: { id: crypto.randomUUID() } });
    await exercise("put", "/api/vessels", 200, { as: admin, query: { id }, body: { flag: "Cyprus" } });
    const assignment = await exercise<Answer<"/api/vessels/assignments", "post">>(
      "post",
      "/api/vessels/assignments",
      200,
      {
        as: admin,
        body: { vessel_id: id, user_id: standard._id, from: "2026-01-01", to: null },
      },
    );
    await exercise("post", "/api/vessels/assignments", 409, {
      as: admin,
      body: { vessel_id: id, user_id: standard._id, from: "2026-02-01", to: "2026-02-28" },
    });
    await exercise("get", "/api/vessels/assignments", 200, { as: admin, query: { vessel_id: id } });
    await exercise("get", "/api/vessels/assignments", 200, { as: standard, query: { user_id: standard._id } });
    await exercise("delete", "/api/vessels/assignments", 200, { as: admin, query: { id: assignment.body.data._id } });
    await exercise("delete", "/api/vessels/assignments", 404, { as: admin, query: { id: assignment.body.data._id } });
    await exercise("delete", "/api/vessels", 200, { as: admin, query: { id } });
    // The ranks on board (issue 41), any signed-in user.
    await exercise("get", "/api/ranks", 200, { as: standard });
    const mocOf = await exercise<Answer<"/api/newmoc", "post">>("post", "/api/newmoc", 200, {
      as: standard,
      body: {
        implementer: { value: { _id: admin._id } },
        "department-of-change": { value: "engineering" },
        "description-of-change": { value: "<p>An older client's MOC</p>" },
        "reason-for-change": { value: "No title or vessel" },
        "affected-departments": { value: [] },
      },
    });
    await exercise("post", "/api/titleAndVessel", 200, {
      as: standard,
      body: { moc_id: mocOf.body.data._id, title: { value: "Recorded later" }, vessel: { value: "office" } },
    });
    await exercise("post", "/api/titleAndVessel", 409, {
      as: standard,
      body: { moc_id: mocOf.body.data._id, vessel: { value: "fleet" } },
    });
  });

  it("circulations and acknowledgements (issue 41)", async () => {
    const holders = await makeHolders("contract");
    const originator = await makeUser({ department: "fleet" });
    const reader = await makeUser({ department: "operations" });
    const stranger = await makeUser({ department: "engineering" });
    const pcr = await createPcrOk(originator);
    await signChain(pcr._id, { "Change Originator": originator, ...holders });
    const body = {
      record: `pcr:${pcr._id}`,
      vessels: [],
      departments: ["operations"],
      due: "2099-12-31",
      note: "The bunkering checklist gains a second sounding.",
    };
    const made = await exercise<Answer<"/api/circulations", "post", 201>>("post", "/api/circulations", 201, {
      as: originator,
      body,
    });
    const id = made.body.data._id;
    await exercise("post", "/api/circulations", 403, { as: reader, body });
    const pending = await createPcrOk(originator);
    await exercise("post", "/api/circulations", 409, {
      as: originator,
      body: { ...body, record: `pcr:${pending._id}` },
    });
    await exercise("post", "/api/circulations", 404, {
      as: originator,
      body: { ...body, record: `pcr:${crypto.randomUUID()}` },
    });
    await exercise("get", "/api/circulations", 200, { as: originator, query: { record: `pcr:${pcr._id}` } });
    await exercise("get", "/api/circulations", 403, { as: stranger, query: { record: `pcr:${pcr._id}` } });
    await exercise("get", "/api/myAcknowledgements", 200, { as: reader, query: { limit: "5" } });
    await exercise("post", "/api/acknowledge", 201, { as: reader, body: { circulation_id: id, comment: "Read it." } });
    await exercise("post", "/api/acknowledge", 200, { as: reader, body: { circulation_id: id } });
    await exercise("post", "/api/acknowledge", 403, { as: admin, body: { circulation_id: id } });
    await exercise("post", "/api/acknowledge", 404, { as: reader, body: { circulation_id: crypto.randomUUID() } });
  });

  it("links between records (issue 42)", async () => {
    const originator = await makeUser({ department: "fleet" });
    const stranger = await makeUser({ department: "engineering" });
    const pcr = await createPcrOk(originator);
    const other = await createPcrOk(originator);
    const body = { from: `pcr:${pcr._id}`, to: `pcr:${other._id}`, kind: "replaces" };
    const made = await exercise<Answer<"/api/links", "post", 201>>("post", "/api/links", 201, { as: originator, body });
    await exercise("post", "/api/links", 200, { as: originator, body });
    await exercise("post", "/api/links", 403, { as: stranger, body });
    await exercise("post", "/api/links", 404, { as: originator, body: { ...body, to: `pcr:${crypto.randomUUID()}` } });
    await exercise("post", "/api/links", 409, { as: originator, body: { ...body, from: body.to, to: body.from } });
    await exercise("post", "/api/links", 400, { as: originator, body: { ...body, kind: "replaced by" } });
    await exercise("get", "/api/links", 200, { as: originator, query: { record: `pcr:${pcr._id}` } });
    await exercise("get", "/api/links", 403, { as: stranger, query: { record: `pcr:${pcr._id}` } });
    await exercise("get", "/api/links", 404, { as: originator, query: { record: `moc:${crypto.randomUUID()}` } });
    await exercise("delete", "/api/links", 404, { as: stranger, query: { id: made.body.data._id } });
    await exercise("delete", "/api/links", 200, { as: originator, query: { id: made.body.data._id } });
    await exercise("delete", "/api/links", 409, { as: originator, query: { id: made.body.data._id } });
  });

  it("external references (issue 42)", async () => {
    const originator = await makeUser({ department: "fleet" });
    const stranger = await makeUser({ department: "engineering" });
    const pcr = await createPcrOk(originator);
    const record = `pcr:${pcr._id}`;
    await exercise("get", "/api/referenceTypes", 200, { as: stranger });
    const body = { record, type: "PMS work order", ref: "WO-1234" };
    const made = await exercise<Answer<"/api/references", "post", 201>>("post", "/api/references", 201, {
      as: originator,
      body,
    });
    await exercise("post", "/api/references", 409, { as: originator, body });
    await exercise("post", "/api/references", 403, { as: stranger, body });
    await exercise("post", "/api/references", 400, { as: originator, body: { ...body, ref: "" } });
    await exercise("post", "/api/references", 404, {
      as: originator,
      body: { ...body, record: `pcr:${crypto.randomUUID()}` },
    });
    await exercise("get", "/api/references", 200, { as: originator, query: { record } });
    await exercise("get", "/api/references", 403, { as: stranger, query: { record } });
    await exercise("get", "/api/references", 404, { as: originator, query: { record: `moc:${crypto.randomUUID()}` } });
    await exercise("delete", "/api/references", 403, { as: stranger, query: { id: made.body.data.id } });
    await exercise("delete", "/api/references", 200, { as: originator, query: { id: made.body.data.id } });
    await exercise("delete", "/api/references", 404, { as: originator, query: { id: made.body.data.id } });
  });

  it("effectiveness reviews and follow-up MOCs (issue 42)", async () => {
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const verify = (moc: Doc, reviewDate: string) => ({
      moc_id: moc._id,
      verifier_form: { ...verifierForm(), "review-date": { value: reviewDate } },
    });
    const refused = await mocAt("f", cast);
    await exercise("post", "/api/submit/verifier", 400, { as: cast.hseq, body: verify(refused, inDays(-1)) });
    const moc = await mocAt("f", cast);
    await exercise("post", "/api/submit/verifier", 200, { as: cast.hseq, body: verify(moc, inDays(30)) });
    await exercise("get", "/api/singlemoc", 200, { as: cast.hseq, query: { moc_id: moc._id } });
    const body = { id: moc._id, result: "not-effective", comment: "The alarm still sounds late" };
    await exercise("post", "/api/effectivenessReview", 403, { as: standard, body });
    await exercise("post", "/api/effectivenessReview", 400, { as: cast.hseq, body: { id: moc._id, result: "partly" } });
    await exercise("post", "/api/effectivenessReview", 404, {
      as: cast.hseq,
      body: { ...body, id: crypto.randomUUID() },
    });
    await exercise("post", "/api/effectivenessReview", 201, { as: cast.hseq, body });
    await exercise("post", "/api/effectivenessReview", 409, { as: cast.hseq, body });
    await exercise("post", "/api/newmoc", 200, {
      as: cast.hseq,
      body: { ...newMocBody(), followUp: `moc:${moc._id}` },
    });
  });

  it("the image proxy, this document and the benchmark floor", async () => {
    const image = await exercise("get", "/api/proxy", 200, { as: standard, query: { url: `${imageBase}/deck.png` } });
    expect(image.headers.get("Content-Type")).toBe("image/png");
    await exercise("get", "/api/proxy", 502, { as: standard, query: { url: `${imageBase}/broken.png` } });
    await exercise("get", "/api/openapi.json", 200);
    await exercise("get", "/api/floor", 200);
  });

  // The keyset-paged lists (GET /api/chat pages a room by message instead: before/after/limit).
  it("every paged list answers a page and the page its Link names; every list answers CSV", async () => {
    type Parameter = { name: string; in: string };
    const lists = Object.entries(doc.paths).filter(([, ops]) =>
      ((ops.get as { parameters?: Parameter[] } | undefined)?.parameters ?? []).some((p) => p.name === "cursor"),
    );
    expect(lists.map(([path]) => path)).toEqual(
      expect.arrayContaining(["/api/users", "/api/oldMoc", "/api/oldPcr", "/api/year-end-review", "/api/pcr/summary"]),
    );
    for (const [path, ops] of lists) {
      const first = await exercise<{ data: unknown[] }>("get", path, 200, { as: admin, query: { limit: "1" } });
      expect(first.body.data.length, path).toBeLessThanOrEqual(1);
      const link = first.headers.get("Link");
      if (path === "/api/users") expect(link, "the directory has more than one account").toBeTruthy();
      if (link) {
        const next = new URL(/^<([^>]+)>; rel="next"$/.exec(link)![1]!, server.url);
        expect(next.pathname).toBe(path);
        const second = await exercise<{ data: { _id: string }[] }>("get", path, 200, {
          as: admin,
          query: Object.fromEntries(next.searchParams),
        });
        expect(second.body.data.map((d: { _id: string }) => d._id)).not.toContain(
          (first.body.data[0] as { _id: string })._id,
        );
      }
      await exercise("get", path, 400, { as: admin, query: { cursor: "not-a-cursor" } });
      const csv = (ops.get as { parameters?: Parameter[] }).parameters!.some((p) => p.name === "format");
      expect(csv, `${path} documents CSV`).toBe(true);
      const asked = await exercise("get", path, 200, { as: admin, headers: { Accept: "text/csv" } });
      expect(asked.headers.get("Content-Type"), path).toBe("text/csv; charset=utf-8");
    }
  });

  it("every signed-in operation answers 401 without credentials", async () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations) as [Method, OperationObject & { security?: [] }][]) {
        if (op.security?.length === 0) continue;
        await exercise(method, path, 401, { params: { id: crypto.randomUUID() } });
      }
    }
  });

  it("every JSON body that is not JSON is a 400 with its issues", async () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations) as [Method, OperationObject & { requestBody?: Json }][]) {
        if (!op.requestBody || path === "/login") continue;
        const res = await exercise(method, path, 400, {
          as: admin,
          params: { id: crypto.randomUUID() },
          query: { id: crypto.randomUUID() },
          body: "{not json",
        });
        expect(res.body.issues).toEqual([{ path: "", message: expect.any(String) }]);
      }
    }
  });

  it("a cookie-signed write with a body that is not JSON is a 415; a spent failure budget a 429", async () => {
    const cookie = await sessionCookieHeader(await tokenOf(standard));
    await exercise("patch", "/api/user", 415, {
      headers: { Cookie: cookie, "Content-Type": "text/plain", Origin: server.url },
      body: JSON.stringify({ name: "Sam" }),
    });
    await exercise("delete", "/api/deleteMoC", 415, {
      headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: server.url },
      query: { id: crypto.randomUUID() },
      body: "id=1",
    });
    // 10 failures per email per 15 minutes (docs/security.md), then 429 with Retry-After.
    const target = await makeUser();
    let status = 401;
    for (let i = 0; i < 20 && status === 401; i++) {
      status = (await send("post", "/api/verify", { body: { email: target.email, password: `wrong-${i}-password` } }))
        .status;
    }
    const limited = await exercise("post", "/api/verify", 429, {
      body: { email: target.email, password: "wrong-again-password" },
    });
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("a body over 1 MiB is a 413", async () => {
    await exercise("post", "/api/chat", 413, {
      as: standard,
      body: JSON.stringify({ pad: "x".repeat(1024 * 1024 + 1) }),
    });
  });

  it("exercised every documented operation's success answer", () => {
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations) as [Method, OperationObject][]) {
        const key = `${method.toUpperCase()} ${path}`;
        const success = Object.keys(op.responses).find((s) => s.startsWith("2"))!;
        if (!seen.get(key)?.has(Number(success))) missing.push(`${key} (${success})`);
      }
    }
    expect(missing).toEqual([]);
  });
});

function newMocBody() {
  return {
    implementer: v({ _id: cast.implementer._id }),
    "description-of-change": v("<p>Replace the bilge pump</p>"),
    "reason-for-change": v("The old one leaks"),
    "department-of-change": v("engineering"),
    "affected-departments": v(["engineering"]),
    "departments-to-inform": v(["operations"]),
  };
}
