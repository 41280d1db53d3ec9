/**
 * Drives MOCs through the real /api routes: a cast of users, cached sessions, one call per
 * pipeline step, and `mocAt(stage)` which advances a fresh MOC to a given stage. Plus readers of
 * what a step left behind (emails, snapshots) so tests can compare before and after.
 */
import { asc, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import * as addUserRoute from "~/routes/api+/addUser";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as submitApprover from "~/routes/api+/submit.approver";
import * as submitDeviation from "~/routes/api+/submit.deviation-extention";
import * as submitHseq from "~/routes/api+/submit.hseq";
import * as reportCompletion from "~/routes/api+/reportCompletion";
import * as submitImplementation from "~/routes/api+/submit.implementation";
import * as submitImplementer from "~/routes/api+/submit.implementer";
import * as submitOriginator from "~/routes/api+/submit.originator";
import * as submitVerifier from "~/routes/api+/submit.verifier";
import * as submitVerifierReturn from "~/routes/api+/submit.verifier-return";
import * as submitTemporaryConfirm from "~/routes/api+/submit.temporary-confirm";
import * as submitTemporaryExtension from "~/routes/api+/submit.temporary-extension";
import * as submitTemporaryExtensionDecision from "~/routes/api+/submit.temporary-extension-decision";
import * as submitTemporaryPermanent from "~/routes/api+/submit.temporary-permanent";
import * as submitTemporaryRestored from "~/routes/api+/submit.temporary-restored";
import {
  MOC_STAGE_SQL,
  MOC_STEPS,
  mocStage,
  stateOfDocument,
  STEPS,
  type MocStep,
} from "~/models/moc/moc-steps.server";
import { mocPrintRecord } from "~/models/moc/moc-print.server";
import { loadMocDocumentText } from "~/models/moc/moc-query.server";
import { createMoc } from "~/models/moc/moc.server";
import type { NewMocInput } from "~/models/moc/moc.schema";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { emailMessages, users } from "#db/schema";
import { api } from "./api";
import { makeUser, tokenFor } from "./factories";
import {
  approverForm,
  daysFromToday,
  hseqForm,
  implementationForm,
  newMocBody,
  type Cast,
  CAST,
  STEP_PATH,
  stepBody,
  temporaryPartA,
  type Doc,
} from "./moc";
import type { CallOptions, CallResult } from "./request";

type RouteModule = Parameters<typeof api>[0];
export type { Doc };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

// ---------------------------------------------------------------------------------------------
// People

const sessions = new Map<string, Promise<string>>();

/** One session per user per test file (a session row is cheap, but not free). */
export function tokenOf(user: { _id: string }): Promise<string> {
  let token = sessions.get(user._id);
  if (!token) {
    token = tokenFor(user as PublicUser);
    sessions.set(user._id, token);
  }
  return token;
}

/** The five people of a MOC, each in a different department where it matters. */
export async function makeCast(): Promise<Cast> {
  const people = await Promise.all(CAST.map(([, name, department]) => makeUser({ name, department })));
  return Object.fromEntries(CAST.map(([role], i) => [role, people[i]!])) as Cast;
}

export async function deactivate(user: { _id: string }): Promise<void> {
  await getDb().update(users).set({ active: false }).where(eq(users.id, user._id));
}

// ---------------------------------------------------------------------------------------------
// Steps

const ROUTES: Record<MocStep, RouteModule> = {
  originator: submitOriginator,
  implementer: submitImplementer,
  hseq: submitHseq,
  approver: submitApprover,
  implementation: submitImplementation,
  "deviation-extension": submitDeviation,
  "completion-report": reportCompletion,
  verifier: submitVerifier,
  "verifier-return": submitVerifierReturn,
  "temporary-restored": submitTemporaryRestored,
  "temporary-confirm": submitTemporaryConfirm,
  "temporary-extension": submitTemporaryExtension,
  "temporary-extension-decision": submitTemporaryExtensionDecision,
  "temporary-permanent": submitTemporaryPermanent,
};

/** Each step's route module, path and body key (from the step definitions). */
export const STEP_ENDPOINTS = Object.fromEntries(
  MOC_STEPS.map((step) => [step, { route: ROUTES[step], path: STEP_PATH[step], key: STEPS[step].bodyKey }]),
) as Record<MocStep, { route: RouteModule; path: string; key: string | null }>;

/** A valid body for each step: the approving answer. */
export const defaultStepBody = stepBody;

export async function submitStep(step: MocStep, actor: { _id: string } | null, body: unknown): Promise<CallResult> {
  const { route, path } = STEP_ENDPOINTS[step];
  return api(route, { method: "POST", path, token: actor ? await tokenOf(actor) : undefined, body });
}

/** A step that must succeed; returns the populated MOC after it. */
export async function stepOk(step: MocStep, actor: { _id: string }, body: unknown): Promise<Doc> {
  const res = await submitStep(step, actor, body);
  expect(res.status, `${step}: ${res.text}`).toBe(200);
  return res.body.data;
}

export async function post(
  route: RouteModule,
  path: string,
  actor: { _id: string } | null,
  options: Omit<CallOptions, "path" | "token"> = {},
): Promise<CallResult> {
  return api(route, { method: "POST", ...options, path, token: actor ? await tokenOf(actor) : undefined });
}

export async function createMocOk(cast: Cast, overrides: Record<string, unknown> = {}): Promise<Doc> {
  const res = await post(newmocRoute, "/api/newmoc", cast.originator, {
    body: newMocBody(cast.implementer, overrides),
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

// ---------------------------------------------------------------------------------------------
// Stages

/** Where a MOC can be; the `b-*` stages are status `b` for different reasons. */
export const STAGES = [
  "a",
  "b",
  "b-returned",
  "b-deviation",
  "b-extension",
  "b-both",
  "c",
  "d",
  "e",
  "f",
  "f-report",
  "decline-b",
  "decline-d",
  "completed",
] as const;
export type Stage = (typeof STAGES)[number];

export const STAGE_STATUS: Record<Stage, string> = {
  a: "a",
  b: "b",
  "b-returned": "b",
  "b-deviation": "b",
  "b-extension": "b",
  "b-both": "b",
  c: "c",
  d: "d",
  e: "e",
  f: "f",
  "f-report": "f",
  "decline-b": "decline",
  "decline-d": "decline",
  completed: "f",
};

/**
 * A fresh MOC advanced to `stage` through the API (a draft in `a` through the model, as the
 * Part A page saves it: no API creates one). With `verifier`, the cast's verifier is added as
 * the MOC's verifier right after creation.
 */
export async function mocAt(
  stage: Stage,
  cast: Cast,
  options: { verifier?: boolean; temporaryUntil?: string } = {},
): Promise<Doc> {
  const temporary = options.temporaryUntil ? temporaryPartA(options.temporaryUntil) : {};
  if (stage === "a") {
    return createMoc(cast.originator, newMocBody(cast.implementer, temporary) as NewMocInput, { submit: false });
  }
  let moc = await createMocOk(cast, temporary);
  if (options.verifier) {
    const res = await post(addUserRoute, "/api/addUser", cast.originator, {
      body: { userId: cast.verifier._id, mocId: moc._id, role: "verifier" },
    });
    expect(res.status, res.text).toBe(200);
    moc = res.body.data;
  }
  if (stage === "b") return moc;
  if (stage === "decline-b") {
    return stepOk("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: {
        "details-assessed": { value: "no" },
        "necessary-justified": { value: "yes" },
        "decline-reason": { value: "Not needed" },
      },
    });
  }
  moc = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", moc, cast));
  if (stage === "c") return moc;
  if (stage === "b-returned") {
    return stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm("no", "Risk assessment missing") });
  }
  moc = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", moc, cast));
  if (stage === "d") return moc;
  if (stage === "decline-d") {
    return stepOk("approver", cast.approver, { moc_id: moc._id, approver_form: approverForm("no", "Too costly") });
  }
  moc = await stepOk("approver", cast.approver, defaultStepBody("approver", moc, cast));
  if (stage === "e") return moc;
  if (stage === "f-report") {
    // A deviation decided: the MOC waits for the implementer's completion report (issue 38).
    const requested = await stepOk("implementation", cast.implementer, {
      moc_id: moc._id,
      implementation: implementationForm({ deviation: true }),
    });
    return stepOk("deviation-extension", cast.approver, defaultStepBody("deviation-extension", requested, cast));
  }
  if (stage === "b-deviation" || stage === "b-extension" || stage === "b-both") {
    const flags = {
      deviation: stage !== "b-extension",
      extension: stage !== "b-deviation",
    };
    return stepOk("implementation", cast.implementer, { moc_id: moc._id, implementation: implementationForm(flags) });
  }
  moc = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", moc, cast));
  if (stage === "f") return moc;
  const verifier = options.verifier ? cast.verifier : cast.hseq;
  return stepOk("verifier", verifier, defaultStepBody("verifier", moc, cast));
}

/** Where a closed temporary change can be while it is still tracked. */
export type TemporaryStage = "in-effect" | "restoration-reported" | "extension-requested";

/** A temporary change verified and closed (ending on `until`, 30 days on by default), then taken to `stage`. */
export async function temporaryMocAt(stage: TemporaryStage, cast: Cast, until = daysFromToday(30)): Promise<Doc> {
  const moc = await mocAt("completed", cast, { temporaryUntil: until });
  if (stage === "in-effect") return moc;
  if (stage === "restoration-reported") {
    return stepOk("temporary-restored", cast.implementer, defaultStepBody("temporary-restored", moc, cast));
  }
  return stepOk("temporary-extension", cast.implementer, defaultStepBody("temporary-extension", moc, cast));
}

// ---------------------------------------------------------------------------------------------
// What a request left behind

export async function emailRows(mocId: string): Promise<{ id: string; toEmail: string }[]> {
  return getDb()
    .select({ id: emailMessages.id, toEmail: emailMessages.toEmail })
    .from(emailMessages)
    .where(eq(emailMessages.recordId, mocId))
    .orderBy(asc(emailMessages.id));
}

/** Runs `fn` and returns the addresses emailed about the MOC meanwhile, sorted. */
export async function emailsDuring<T>(mocId: string, fn: () => Promise<T>): Promise<{ result: T; to: string[] }> {
  const before = new Set((await emailRows(mocId)).map((r) => r.id));
  const result = await fn();
  const to = (await emailRows(mocId))
    .filter((r) => !before.has(r.id))
    .map((r) => r.toEmail)
    .sort();
  return { result, to };
}

export const emailsOf = (...people: { email: string }[]) => [...new Set(people.map((p) => p.email))].sort();

/** Everything stored about one MOC: its row, forms, people, audit entries and emails (one query). */
export async function mocSnapshot(mocId: string): Promise<MocSnapshot> {
  const [row] = await getDb().execute<{ snapshot: MocSnapshot }>(sql`
    select json_build_object(
      'moc', coalesce((select json_agg(m) from mocs m where m.id = ${mocId}), '[]'::json),
      'forms', coalesce((select json_agg(f order by f.kind) from moc_forms f where f.moc_id = ${mocId}), '[]'::json),
      'people', coalesce((select json_agg(u order by u.user_id) from moc_users u where u.moc_id = ${mocId}), '[]'::json),
      'logs', coalesce((select json_agg(l order by l.at, l.id) from moc_logs l where l.moc_id = ${mocId}), '[]'::json),
      'emails', coalesce((select json_agg(json_build_object('id', e.id, 'toEmail', e.to_email) order by e.id)
                          from email_messages e where e.record_id = ${mocId}), '[]'::json)
    ) as snapshot`);
  return row!.snapshot;
}

/** Rows as PostgreSQL writes them in JSON (snake_case columns). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SnapshotRow = Record<string, any>;
export type MocSnapshot = {
  moc: SnapshotRow[];
  forms: SnapshotRow[];
  people: SnapshotRow[];
  logs: SnapshotRow[];
  emails: { id: string; toEmail: string }[];
};

/**
 * Every MOC-related row in the database, as one digest per table (one query), for "a refused
 * request changed nothing".
 */
export async function mocTablesSnapshot(): Promise<Record<string, string>> {
  const tables = [
    "mocs",
    "moc_forms",
    "moc_form_revisions",
    "moc_users",
    "moc_logs",
    "email_messages",
    "chat_rooms",
    "serial_counters",
    "users",
  ];
  const digest = (table: string) =>
    `(select count(*) || ':' || md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from ${table} t) as ${table}`;
  const [row] = await getDb().execute<Record<string, string>>(sql.raw(`select ${tables.map(digest).join(", ")}`));
  return { ...row! };
}

/** An error answer: `{ status, message }` with that status (and `issues` for a 400). */
export function expectError(res: CallResult, status: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ status, message: expect.any(String) });
  expect(res.body.message.length).toBeGreaterThan(0);
  if (status === 400) {
    expect(Array.isArray(res.body.issues), res.text).toBe(true);
    expect(res.body.issues.length).toBeGreaterThan(0);
    for (const issue of res.body.issues) {
      expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
    }
  } else {
    expect(res.body.issues).toBeUndefined();
  }
}

export const issuePaths = (res: CallResult): string[] => res.body.issues.map((i: { path: string }) => i.path);

/**
 * The stage of a MOC as its record names it (`mocStage`), as SQL names it for the lists and CSV
 * (`MOC_STAGE_SQL`), as its print (and so its PDF) names it and as the API answers it (`stage`):
 * asserts they agree, and returns it.
 */
export async function stageOf(doc: Doc): Promise<string> {
  const label = mocStage(stateOfDocument(doc));
  const [row] = await getDb().execute<{ stage: string }>(
    sql`select ${MOC_STAGE_SQL} as stage from mocs m where m.id = ${doc._id}`,
  );
  expect(row!.stage, doc.serial_num).toBe(label);
  expect(mocPrintRecord(doc, []).status, doc.serial_num).toBe(label);
  // The API's answers carry it (GET /api/singlemoc's text; a step's answer).
  expect(JSON.parse((await loadMocDocumentText(doc._id))!.doc).stage, doc.serial_num).toBe(label);
  if (doc.stage !== undefined) expect(doc.stage, doc.serial_num).toBe(label);
  return label;
}
