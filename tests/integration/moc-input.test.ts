/**
 * Bad input on every MOC endpoint (docs/api-contract.md): malformed JSON, empty bodies, wrong
 * types, missing keys, unknown and malformed ids, oversized bodies, invalid and past dates. The
 * answer is always a 4xx `{ status, message }` (with `issues` for validation), never a 5xx, and
 * nothing in the database changes. Each endpoint's valid body is accepted at the end, so every
 * refusal above it is caused by the one thing that was wrong.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as addUserRoute from "~/routes/api+/addUser";
import * as cloneMocRoute from "~/routes/api+/cloneMoc";
import * as createImplementerRoute from "~/routes/api+/createImplementer";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as impactRoute from "~/routes/api+/impact";
import * as implementerRoute from "~/routes/api+/implementer";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import * as newImplementerRoute from "~/routes/api+/newImplementer";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as riskRoute from "~/routes/api+/risk_assessment";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import { MAX_BODY_BYTES } from "~/utils/http.server";
import type { PublicUser } from "~/models/people/user.server";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import {
  approverForm,
  futureDate,
  hseqForm,
  implementationForm,
  implementerForm,
  newMocBody,
  originatorForm,
  resolution,
  type Cast,
  verifierForm,
} from "../helpers/moc";
import {
  STEP_ENDPOINTS,
  deactivate,
  expectError,
  issuePaths,
  makeCast,
  mocAt,
  mocTablesSnapshot,
  tokenOf,
  type Doc,
  type Stage,
} from "../helpers/moc-flow";
import { describeMocInvariants } from "../helpers/db-state";

type RouteModule = Parameters<typeof api>[0];
type Json = Record<string, unknown>;

let cast: Cast;
let inactive: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  inactive = await makeUser({ name: "Ina Inactive", department: "operations" });
  await deactivate(inactive);
});

const PAST = "2001-05-17";
const TOO_BIG = "x".repeat(MAX_BODY_BYTES + 1);

/** A deep copy of `body` with `path` (dot-separated) set to `value`, or removed when `value` is DROP. */
const DROP = Symbol("drop");
function change(body: Json, path: string, value: unknown): Json {
  const copy = structuredClone(body);
  const keys = path.split(".");
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === DROP) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return copy;
}

type Ctx = { moc: Doc };

type BadCase = {
  label: string;
  /** A JSON value, or a raw string sent as it is. */
  body?: (valid: Json, ctx: Ctx) => unknown;
  query?: (ctx: Ctx) => Record<string, string>;
  status: 400 | 401 | 404 | 413;
  /** An issue path the 400 must name (exactly, or as a prefix). */
  path?: string;
  token?: string;
};

type Endpoint = {
  name: string;
  route: RouteModule;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  /** The stage of the MOC the endpoint works on (null: it creates one). */
  stage: Stage | null;
  actor: keyof Cast;
  /** A body (or, for GET and DELETE, a query) that the endpoint accepts. */
  valid: (ctx: Ctx) => Json;
  /** The body keys that must be present; the rest are optional. */
  required?: string[];
  /** Body keys that hold a MOC id (404 when uuid-shaped but unknown). */
  mocIdKeys?: string[];
  cases: BadCase[];
};

const v = <T>(value: T) => ({ value });

/** Cases every JSON-body endpoint gets. */
function bodyCases(endpoint: Endpoint): BadCase[] {
  const cases: BadCase[] = [
    { label: "malformed JSON", body: () => '{"moc_id": "', status: 400 },
    { label: "a JSON string with a trailing comma", body: () => '{"a": 1,}', status: 400 },
    { label: "an empty body", body: () => "", status: 400 },
    { label: "a blank body", body: () => "  \n ", status: 400 },
    { label: "null", body: () => null, status: 400 },
    { label: "an array", body: () => [], status: 400 },
    { label: "a number", body: () => 42, status: 400 },
    { label: "a string", body: () => "hello", status: 400 },
    { label: "an empty object", body: () => ({}), status: 400 },
    {
      label: "an oversized body (valid JSON over 1 MiB)",
      body: (valid) => ({ ...valid, padding: TOO_BIG }),
      status: 413,
    },
    { label: "an oversized body (garbage over 1 MiB)", body: () => TOO_BIG, status: 413 },
    {
      label: "malformed JSON without a session (401 before anything else)",
      body: () => "{oops",
      status: 401,
      token: "",
    },
    {
      label: "a valid body with a forged token",
      body: (valid) => valid,
      status: 401,
      token: "eyJhbGciOiJIUzI1NiJ9.e30.forged",
    },
  ];
  for (const key of endpoint.required ?? []) {
    cases.push({ label: `missing ${key}`, body: (valid) => change(valid, key, DROP), status: 400, path: key });
    cases.push({ label: `${key} as a number`, body: (valid) => change(valid, key, 12345), status: 400, path: key });
    cases.push({ label: `${key} as null`, body: (valid) => change(valid, key, null), status: 400, path: key });
  }
  for (const key of endpoint.mocIdKeys ?? []) {
    cases.push({ label: `${key} not a uuid`, body: (valid) => change(valid, key, "moc-1"), status: 400, path: key });
    cases.push({
      label: `${key} a uuid with a stray character`,
      body: (valid, ctx) => change(valid, key, `${ctx.moc?._id ?? randomUUID()}x`),
      status: 400,
      path: key,
    });
    cases.push({ label: `${key} unknown`, body: (valid) => change(valid, key, randomUUID()), status: 404 });
  }
  return cases;
}

function queryCases(key: string): BadCase[] {
  return [
    { label: `no ${key}`, query: () => ({}), status: 400, path: key },
    { label: `${key} not a uuid`, query: () => ({ [key]: "abc" }), status: 400, path: key },
    { label: `${key} empty`, query: () => ({ [key]: "" }), status: 400, path: key },
    { label: `${key} SQL-ish`, query: () => ({ [key]: "' or 1=1 --" }), status: 400, path: key },
    { label: `${key} unknown`, query: () => ({ [key]: randomUUID() }), status: 404 },
    { label: `${key} without a session`, query: (ctx) => ({ [key]: ctx.moc._id }), status: 401, token: "" },
  ];
}

const newMocCases: BadCase[] = [
  {
    label: "implementer not a uuid",
    body: (b) => change(b, "implementer.value._id", "bob"),
    status: 400,
    path: "implementer",
  },
  {
    label: "implementer unknown",
    body: (b) => change(b, "implementer.value._id", randomUUID()),
    status: 400,
    path: "implementer",
  },
  {
    label: "implementer inactive",
    body: (b) => change(b, "implementer.value._id", inactive._id),
    status: 400,
    path: "implementer",
  },
  {
    label: "implementer without { value }",
    body: (b) => change(b, "implementer", cast.implementer._id),
    status: 400,
    path: "implementer",
  },
  {
    label: "implementer value an array",
    body: (b) => change(b, "implementer.value", [cast.implementer._id]),
    status: 400,
    path: "implementer",
  },
  {
    label: "description a number",
    body: (b) => change(b, "description-of-change.value", 5),
    status: 400,
    path: "description-of-change",
  },
  {
    label: "description empty",
    body: (b) => change(b, "description-of-change.value", ""),
    status: 400,
    path: "description-of-change",
  },
  {
    label: "description only tags",
    body: (b) => change(b, "description-of-change.value", "<p> </p><br>"),
    status: 400,
    path: "description-of-change",
  },
  {
    label: "description too long",
    body: (b) => change(b, "description-of-change.value", `<p>${"a".repeat(100_001)}</p>`),
    status: 400,
    path: "description-of-change",
  },
  {
    label: "reason blank",
    body: (b) => change(b, "reason-for-change.value", "   "),
    status: 400,
    path: "reason-for-change",
  },
  {
    label: "reason an object",
    body: (b) => change(b, "reason-for-change.value", { a: 1 }),
    status: 400,
    path: "reason-for-change",
  },
  {
    label: "unknown department",
    body: (b) => change(b, "department-of-change.value", "marketing"),
    status: 400,
    path: "department-of-change",
  },
  {
    label: "affected departments not an array",
    body: (b) => change(b, "affected-departments.value", "engineering"),
    status: 400,
    path: "affected-departments",
  },
  {
    label: "affected departments with an unknown one",
    body: (b) => change(b, "affected-departments.value", ["engineering", "sales"]),
    status: 400,
    path: "affected-departments",
  },
  {
    label: "departments to inform of numbers",
    body: (b) => change(b, "departments-to-inform.value", [1, 2]),
    status: 400,
    path: "departments-to-inform",
  },
];

const newMocRequired = [
  "implementer",
  "department-of-change",
  "description-of-change",
  "reason-for-change",
  "affected-departments",
];

const ENDPOINTS: Endpoint[] = [
  {
    name: "POST /api/newmoc",
    route: newmocRoute,
    method: "POST",
    path: "/api/newmoc",
    stage: null,
    actor: "originator",
    valid: () => newMocBody(cast.implementer),
    required: newMocRequired,
    cases: newMocCases,
  },
  {
    name: "POST /api/newImplementer",
    route: newImplementerRoute,
    method: "POST",
    path: "/api/newImplementer",
    stage: null,
    actor: "originator",
    valid: () => newMocBody(cast.implementer),
    required: newMocRequired,
    cases: newMocCases,
  },
  {
    name: "POST /api/submit/originator",
    route: STEP_ENDPOINTS.originator.route,
    method: "POST",
    path: "/api/submit/originator",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id, originator_form: originatorForm(cast.implementer) }),
    required: ["moc_id", "originator_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "implementer-name unknown",
        body: (b) => change(b, "originator_form.implementer-name.value._id", randomUUID()),
        status: 400,
        path: "originator_form.implementer-name",
      },
      {
        label: "implementer-name inactive",
        body: (b) => change(b, "originator_form.implementer-name.value", inactive._id),
        status: 400,
        path: "originator_form.implementer-name",
      },
      {
        label: "implementer-name missing",
        body: (b) => change(b, "originator_form.implementer-name", DROP),
        status: 400,
        path: "originator_form.implementer-name",
      },
      {
        label: "department unknown",
        body: (b) => change(b, "originator_form.department-of-change.value", "x"),
        status: 400,
        path: "originator_form.department-of-change",
      },
      {
        label: "the form an array",
        body: (b) => change(b, "originator_form", []),
        status: 400,
        path: "originator_form",
      },
    ],
  },
  {
    name: "POST /api/submit/implementer",
    route: STEP_ENDPOINTS.implementer.route,
    method: "POST",
    path: "/api/submit/implementer",
    stage: "b",
    actor: "implementer",
    valid: ({ moc }) => ({ moc_id: moc._id, implementer_form: implementerForm(cast.approver, cast.hseq) }),
    required: ["moc_id", "implementer_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "approving without an approver",
        body: (b) => change(b, "implementer_form.approver-name", DROP),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "approving without an HSEQ user",
        body: (b) => change(b, "implementer_form.hseq-name", DROP),
        status: 400,
        path: "implementer_form.hseq-name",
      },
      {
        label: "approving without a target date",
        body: (b) => change(b, "implementer_form.target-date", DROP),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "target date Feb 30",
        body: (b) => change(b, "implementer_form.target-date.value", "2031-02-30"),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "target date in words",
        body: (b) => change(b, "implementer_form.target-date.value", "next Tuesday"),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "target date with a time",
        body: (b) => change(b, "implementer_form.target-date.value", "2031-01-01T00:00:00Z"),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "target date a timestamp number",
        body: (b) => change(b, "implementer_form.target-date.value", 1924992000000),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "target date in the past",
        body: (b) => change(b, "implementer_form.target-date.value", PAST),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "approver unknown",
        body: (b) => change(b, "implementer_form.approver-name.value._id", randomUUID()),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "approver inactive",
        body: (b) => change(b, "implementer_form.approver-name.value._id", inactive._id),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "approver not a uuid",
        body: (b) => change(b, "implementer_form.approver-name.value._id", "alma"),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "HSEQ user outside HSEQ",
        body: (b) => change(b, "implementer_form.hseq-name.value._id", cast.approver._id),
        status: 400,
        path: "implementer_form.hseq-name",
      },
      {
        label: "details-assessed maybe",
        body: (b) => change(b, "implementer_form.details-assessed.value", "maybe"),
        status: 400,
        path: "implementer_form.details-assessed",
      },
      {
        label: "details-assessed a boolean",
        body: (b) => change(b, "implementer_form.details-assessed.value", true),
        status: 400,
        path: "implementer_form.details-assessed",
      },
      {
        label: "declining without a reason",
        body: (b) => change(b, "implementer_form.necessary-justified.value", "no"),
        status: 400,
        path: "implementer_form.decline-reason",
      },
    ],
  },
  {
    name: "POST /api/submit/hseq",
    route: STEP_ENDPOINTS.hseq.route,
    method: "POST",
    path: "/api/submit/hseq",
    stage: "c",
    actor: "hseq",
    valid: ({ moc }) => ({ moc_id: moc._id, hseq_form: hseqForm() }),
    required: ["moc_id", "hseq_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "a check answered y",
        body: (b) => change(b, "hseq_form.hseq-change-adequately.value", "y"),
        status: 400,
        path: "hseq_form.hseq-change-adequately",
      },
      {
        label: "a check missing",
        body: (b) => change(b, "hseq_form.hseq-risk-assessment-covered", DROP),
        status: 400,
        path: "hseq_form.hseq-risk-assessment-covered",
      },
      { label: "the form a string", body: (b) => change(b, "hseq_form", "yes"), status: 400, path: "hseq_form" },
      {
        label: "returning without a reason",
        body: (b) => change(b, "hseq_form", hseqForm("no")),
        status: 400,
        path: "hseq_form.decline-reason",
      },
    ],
  },
  {
    name: "POST /api/submit/approver",
    route: STEP_ENDPOINTS.approver.route,
    method: "POST",
    path: "/api/submit/approver",
    stage: "d",
    actor: "approver",
    valid: ({ moc }) => ({ moc_id: moc._id, approver_form: approverForm() }),
    required: ["moc_id", "approver_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "approved without reviewing",
        body: (b) => change(b, "approver_form.approver-changes-reviewed.value", "no"),
        status: 400,
        path: "approver_form.approver-changes-reviewed",
      },
      {
        label: "declined without a reason",
        body: (b) => change(b, "approver_form", approverForm("no")),
        status: 400,
        path: "approver_form.decline-reason",
      },
      {
        label: "decision missing",
        body: (b) => change(b, "approver_form.approver-moc-approved", DROP),
        status: 400,
        path: "approver_form.approver-moc-approved",
      },
      {
        label: "decision uppercase",
        body: (b) => change(b, "approver_form.approver-moc-approved.value", "YES"),
        status: 400,
        path: "approver_form.approver-moc-approved",
      },
    ],
  },
  {
    name: "POST /api/submit/implementation",
    route: STEP_ENDPOINTS.implementation.route,
    method: "POST",
    path: "/api/submit/implementation",
    stage: "e",
    actor: "implementer",
    valid: ({ moc }) => ({ moc_id: moc._id, implementation: implementationForm() }),
    required: ["moc_id", "implementation"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "no completion date",
        body: (b) => change(b, "implementation.completion-date", DROP),
        status: 400,
        path: "implementation.completion-date",
      },
      {
        label: "completion date 2030-13-01",
        body: (b) => change(b, "implementation.completion-date.value", "2030-13-01"),
        status: 400,
        path: "implementation.completion-date",
      },
      {
        label: "completion date 31/12/2030",
        body: (b) => change(b, "implementation.completion-date.value", "31/12/2030"),
        status: 400,
        path: "implementation.completion-date",
      },
      {
        label: "a deviation without details",
        body: (b) => change(b, "implementation.deviation-during-implementation.value", "yes"),
        status: 400,
        path: "implementation.deviation-details",
      },
      {
        label: "a deviation with only tags as details",
        body: ({ moc_id }) => ({
          moc_id,
          implementation: { ...implementationForm({ deviation: true }), "deviation-details": v("<p></p>") },
        }),
        status: 400,
        path: "implementation.deviation-details",
      },
      {
        label: "an extension without a date",
        body: ({ moc_id }) => ({
          moc_id,
          implementation: change(implementationForm({ extension: true }), "extension-date", DROP),
        }),
        status: 400,
        path: "implementation.extension-date",
      },
      {
        label: "an extension without a reason",
        body: ({ moc_id }) => ({
          moc_id,
          implementation: change(implementationForm({ extension: true }), "extension-reason", DROP),
        }),
        status: 400,
        path: "implementation.extension-reason",
      },
      {
        label: "an extension date in the past",
        body: ({ moc_id }) => ({
          moc_id,
          implementation: change(implementationForm({ extension: true }), "extension-date.value", PAST),
        }),
        status: 400,
        path: "implementation.extension-date",
      },
      {
        label: "an extension date that does not exist",
        body: ({ moc_id }) => ({
          moc_id,
          implementation: change(implementationForm({ extension: true }), "extension-date.value", "2031-04-31"),
        }),
        status: 400,
        path: "implementation.extension-date",
      },
      {
        label: "a flag missing",
        body: (b) => change(b, "implementation.moc-circulated", DROP),
        status: 400,
        path: "implementation.moc-circulated",
      },
    ],
  },
  {
    name: "POST /api/submit/deviation-extention",
    route: STEP_ENDPOINTS["deviation-extension"].route,
    method: "POST",
    path: "/api/submit/deviation-extention",
    stage: "b-both",
    actor: "approver",
    valid: ({ moc }) => resolution(moc, "deviation"),
    required: ["moc_id", "deviationExtentionId", "value", "type"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "deviationExtentionId not a uuid",
        body: (b) => change(b, "deviationExtentionId", "dev-1"),
        status: 400,
        path: "deviationExtentionId",
      },
      {
        label: "deviationExtentionId unknown",
        body: (b) => change(b, "deviationExtentionId", randomUUID()),
        status: 404,
      },
      { label: "type both", body: (b) => change(b, "type", "both"), status: 400, path: "type" },
      {
        label: "approved maybe",
        body: (b) => change(b, "value.approved", "maybe"),
        status: 400,
        path: "value.approved",
      },
      {
        label: "approved missing",
        body: (b) => change(b, "value.approved", DROP),
        status: 400,
        path: "value.approved",
      },
      { label: "comment a number", body: (b) => change(b, "value.comment", 7), status: 400, path: "value.comment" },
    ],
  },
  {
    name: "POST /api/submit/verifier",
    route: STEP_ENDPOINTS.verifier.route,
    method: "POST",
    path: "/api/submit/verifier",
    stage: "f",
    actor: "hseq",
    valid: ({ moc }) => ({ moc_id: moc._id, verifier_form: verifierForm() }),
    required: ["moc_id", "verifier_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "close-moc nah",
        body: (b) => change(b, "verifier_form.close-moc.value", "nah"),
        status: 400,
        path: "verifier_form.close-moc",
      },
      {
        label: "close-moc missing",
        body: (b) => change(b, "verifier_form.close-moc", DROP),
        status: 400,
        path: "verifier_form.close-moc",
      },
      {
        label: "a field without { value }",
        body: (b) => change(b, "verifier_form.moc-effective", "yes"),
        status: 400,
        path: "verifier_form.moc-effective",
      },
    ],
  },
  {
    name: "POST /api/cloneMoc",
    route: cloneMocRoute,
    method: "POST",
    path: "/api/cloneMoc",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ old_moc: { _id: moc._id } }),
    required: ["old_moc"],
    mocIdKeys: ["old_moc._id"],
    cases: [
      { label: "old_moc a string id", body: (_b, { moc }) => ({ old_moc: moc._id }), status: 400, path: "old_moc" },
      { label: "old_moc without _id", body: () => ({ old_moc: {} }), status: 400, path: "old_moc._id" },
    ],
  },
  {
    name: "POST /api/addUser",
    route: addUserRoute,
    method: "POST",
    path: "/api/addUser",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ userId: cast.verifier._id, mocId: moc._id, role: "verifier" }),
    required: ["userId", "mocId", "role"],
    mocIdKeys: ["mocId"],
    cases: [
      { label: "userId unknown", body: (b) => change(b, "userId", randomUUID()), status: 400, path: "userId" },
      { label: "userId inactive", body: (b) => change(b, "userId", inactive._id), status: 400, path: "userId" },
      { label: "userId not a uuid", body: (b) => change(b, "userId", "vera"), status: 400, path: "userId" },
      { label: "role owner", body: (b) => change(b, "role", "owner"), status: 400, path: "role" },
      { label: "role originator", body: (b) => change(b, "role", "originator"), status: 400, path: "role" },
    ],
  },
  {
    name: "POST /api/impact",
    route: impactRoute,
    method: "POST",
    path: "/api/impact",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id, impact_assessment: [{ category: "Safety", hazards: ["Noise"] }] }),
    required: ["moc_id", "impact_assessment"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "an object instead of a list",
        body: (b) => change(b, "impact_assessment", { category: "Safety" }),
        status: 400,
        path: "impact_assessment",
      },
      {
        label: "an empty category",
        body: (b) => change(b, "impact_assessment.0.category", " "),
        status: 400,
        path: "impact_assessment.0.category",
      },
      {
        label: "hazards a string",
        body: (b) => change(b, "impact_assessment.0.hazards", "Noise"),
        status: 400,
        path: "impact_assessment.0.hazards",
      },
      {
        label: "a hazard a number",
        body: (b) => change(b, "impact_assessment.0.hazards", [1]),
        status: 400,
        path: "impact_assessment.0.hazards.0",
      },
      {
        label: "51 items",
        body: (b) =>
          change(
            b,
            "impact_assessment",
            Array.from({ length: 51 }, () => ({ category: "c", hazards: [] })),
          ),
        status: 400,
        path: "impact_assessment",
      },
    ],
  },
  {
    name: "POST /api/risk_assessment",
    route: riskRoute,
    method: "POST",
    path: "/api/risk_assessment",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id, risk_assessment: "https://files.example.com/risk.pdf" }),
    required: ["moc_id", "risk_assessment"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "a javascript: URL",
        body: (b) => change(b, "risk_assessment", "javascript:alert(1)"),
        status: 400,
        path: "risk_assessment",
      },
      {
        label: "a data: URL",
        body: (b) => change(b, "risk_assessment", "data:text/html,<script>1</script>"),
        status: 400,
        path: "risk_assessment",
      },
      {
        label: "an ftp URL",
        body: (b) => change(b, "risk_assessment", "ftp://files.example.com/r.pdf"),
        status: 400,
        path: "risk_assessment",
      },
      {
        label: "an upload path escaping the folder",
        body: (b) => change(b, "risk_assessment", "/uploads/../.env"),
        status: 400,
        path: "risk_assessment",
      },
      { label: "an empty string", body: (b) => change(b, "risk_assessment", ""), status: 400, path: "risk_assessment" },
      {
        label: "a list of URLs",
        body: (b) => change(b, "risk_assessment", ["https://a.example/r.pdf"]),
        status: 400,
        path: "risk_assessment",
      },
    ],
  },
  {
    name: "POST /api/actionTable",
    route: actionTableRoute,
    method: "POST",
    path: "/api/actionTable",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({
      id: moc._id,
      action: { items: [{ description: "Order parts", owner: cast.implementer._id, due: futureDate(5), done: false }] },
    }),
    required: ["id", "action"],
    mocIdKeys: ["id"],
    cases: [
      { label: "items missing", body: (b) => change(b, "action.items", DROP), status: 400, path: "action.items" },
      {
        label: "an empty description",
        body: (b) => change(b, "action.items.0.description", ""),
        status: 400,
        path: "action.items.0.description",
      },
      {
        label: "owner unknown",
        body: (b) => change(b, "action.items.0.owner", randomUUID()),
        status: 400,
        path: "action.items.0.owner",
      },
      {
        label: "owner inactive",
        body: (b) => change(b, "action.items.0.owner", inactive._id),
        status: 400,
        path: "action.items.0.owner",
      },
      {
        label: "owner a name",
        body: (b) => change(b, "action.items.0.owner", "Ian"),
        status: 400,
        path: "action.items.0.owner",
      },
      {
        label: "due 2030-02-29",
        body: (b) => change(b, "action.items.0.due", "2030-02-29"),
        status: 400,
        path: "action.items.0.due",
      },
      {
        label: "done 'yes'",
        body: (b) => change(b, "action.items.0.done", "yes"),
        status: 400,
        path: "action.items.0.done",
      },
    ],
  },
  {
    name: "POST /api/manualsPlan",
    route: manualsPlanRoute,
    method: "POST",
    path: "/api/manualsPlan",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({
      id: moc._id,
      manual_plan: { items: [{ document: "Manual", change: "Section 4", owner: null, due: null, done: false }] },
    }),
    required: ["id", "manual_plan"],
    mocIdKeys: ["id"],
    cases: [
      {
        label: "a document missing",
        body: (b) => change(b, "manual_plan.items.0.document", DROP),
        status: 400,
        path: "manual_plan.items.0.document",
      },
      {
        label: "owner unknown",
        body: (b) => change(b, "manual_plan.items.0.owner", randomUUID()),
        status: 400,
        path: "manual_plan.items.0.owner",
      },
      {
        label: "due not a date",
        body: (b) => change(b, "manual_plan.items.0.due", "soon"),
        status: 400,
        path: "manual_plan.items.0.due",
      },
      {
        label: "201 items",
        body: (b) =>
          change(
            b,
            "manual_plan.items",
            Array.from({ length: 201 }, () => ({ document: "d", change: "c" })),
          ),
        status: 400,
        path: "manual_plan.items",
      },
    ],
  },
  ...(
    [
      ["POST /api/createImplementer", createImplementerRoute, "/api/createImplementer"],
      ["POST /api/implementer", implementerRoute, "/api/implementer"],
    ] as const
  ).map(([name, route, path]): Endpoint => ({
    name,
    route,
    method: "POST",
    path,
    stage: "b",
    actor: "implementer",
    valid: ({ moc }) => ({ moc_id: moc._id, implementer_form: { "approver-name": v(cast.approver._id) } }),
    required: ["moc_id", "implementer_form"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "approver unknown",
        body: (b) => change(b, "implementer_form.approver-name.value", randomUUID()),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "approver inactive",
        body: (b) => change(b, "implementer_form.approver-name.value", inactive._id),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "approver not a uuid",
        body: (b) => change(b, "implementer_form.approver-name.value", "alma"),
        status: 400,
        path: "implementer_form.approver-name",
      },
      {
        label: "target date invalid",
        body: (b) => change(b, "implementer_form.target-date", v("2031-11-31")),
        status: 400,
        path: "implementer_form.target-date",
      },
      {
        label: "details-assessed sure",
        body: (b) => change(b, "implementer_form.details-assessed", v("sure")),
        status: 400,
        path: "implementer_form.details-assessed",
      },
      {
        label: "the form a string",
        body: (b) => change(b, "implementer_form", "draft"),
        status: 400,
        path: "implementer_form",
      },
    ],
  })),
  {
    name: "PUT /api/implementer",
    route: implementerRoute,
    method: "PUT",
    path: "/api/implementer",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id, implementer_id: cast.approver._id }),
    required: ["moc_id", "implementer_id"],
    mocIdKeys: ["moc_id"],
    cases: [
      {
        label: "implementer unknown",
        body: (b) => change(b, "implementer_id", randomUUID()),
        status: 400,
        path: "implementer_id",
      },
      {
        label: "implementer inactive",
        body: (b) => change(b, "implementer_id", inactive._id),
        status: 400,
        path: "implementer_id",
      },
      {
        label: "implementer not a uuid",
        body: (b) => change(b, "implementer_id", "ian"),
        status: 400,
        path: "implementer_id",
      },
    ],
  },
  {
    name: "GET /api/singlemoc",
    route: singlemocRoute,
    method: "GET",
    path: "/api/singlemoc",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id }),
    cases: queryCases("moc_id"),
  },
  {
    name: "GET /api/implementer",
    route: implementerRoute,
    method: "GET",
    path: "/api/implementer",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ moc_id: moc._id }),
    cases: queryCases("moc_id"),
  },
  {
    name: "DELETE /api/deleteMoC",
    route: deleteMocRoute,
    method: "DELETE",
    path: "/api/deleteMoC",
    stage: "b",
    actor: "originator",
    valid: ({ moc }) => ({ id: moc._id }),
    cases: [
      ...queryCases("id"),
      {
        label: "the id in a body instead of the query",
        query: () => ({}),
        body: (_b, { moc }) => ({ id: moc._id }),
        status: 400,
        path: "id",
      },
    ],
  },
];

const usesQuery = (endpoint: Endpoint) => endpoint.method === "GET" || endpoint.method === "DELETE";

describe.each(ENDPOINTS)("$name", (endpoint) => {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    if (endpoint.stage) ctx.moc = await mocAt(endpoint.stage, cast);
  });

  const cases = usesQuery(endpoint) ? endpoint.cases : [...bodyCases(endpoint), ...endpoint.cases];

  it.each(cases)("$label: $status, nothing changes", async (badCase) => {
    const token = badCase.token ?? (await tokenOf(cast[endpoint.actor]));
    const before = await mocTablesSnapshot();
    const valid = endpoint.valid(ctx);
    const res = await api(endpoint.route, {
      method: endpoint.method,
      path: endpoint.path,
      token: token || undefined,
      query: usesQuery(endpoint) ? (badCase.query?.(ctx) ?? (valid as Record<string, string>)) : undefined,
      body: usesQuery(endpoint) ? badCase.body?.(valid, ctx) : badCase.body!(valid, ctx),
    });
    expect(res.status, res.text).toBeLessThan(500);
    expectError(res, badCase.status);
    if (badCase.path !== undefined) {
      const wanted = badCase.path;
      expect(
        issuePaths(res).some((p) => p === wanted || p.startsWith(`${wanted}.`)),
        `issues ${JSON.stringify(res.body.issues)} should name ${wanted}`,
      ).toBe(true);
    }
    expect(await mocTablesSnapshot()).toEqual(before);
  });

  it("accepts the valid body (so each refusal above was the bad part's doing)", async () => {
    const valid = endpoint.valid(ctx);
    const res = await api(endpoint.route, {
      method: endpoint.method,
      path: endpoint.path,
      token: await tokenOf(cast[endpoint.actor]),
      query: usesQuery(endpoint) ? (valid as Record<string, string>) : undefined,
      body: usesQuery(endpoint) ? undefined : valid,
    });
    expect(res.status, res.text).toBe(200);
  });
});

describeMocInvariants();
