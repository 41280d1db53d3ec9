/**
 * The OpenAPI 3.1 description of /api, served at /api/openapi.json: every operation with its
 * query and body schemas, converted from the same zod schemas the routes validate with (zod's
 * `z.toJSONSchema`), so the document changes when a schema does. tests/integration/openapi.test.ts
 * checks that every /api route file is here with exactly the methods it answers, and that every
 * path here has its route file. The conventions every operation shares (envelope, errors, the
 * three 401 messages) are described once, in `info.description` and the shared responses.
 */
import { z } from "zod";
import { archiveSchemas } from "~/models/archive.schema";
import { chatPostSchema, chatQuerySchema } from "~/models/chat.schema";
import {
  actionPlanSchema,
  addUserSchema,
  cloneMocSchema,
  idQuery,
  impactSchema,
  implementerDraftSchema,
  manualPlanSchema,
  mocIdQuery,
  newMocSchema,
  reassignImplementerSchema,
  riskAssessmentSchema,
} from "~/models/moc.schema";
import { MOC_STEPS, STEPS, stepBodyShape } from "~/models/moc-steps.server";
import {
  affectedPartiesBodySchema,
  clonePcrSchema,
  newPcrSchema,
  signaturesBodySchema,
  updatePcrSchema,
} from "~/models/pcr.schema";
import { reviewBodySchema } from "~/models/review.schema";
import { newUserSchema, ownProfileSchema, userUpdateSchema } from "~/models/user.schema";
import { userIdBody, verifyQuery } from "~/models/user.schema";
import { insightsApiQuery } from "~/models/insights.schema";
import { proxyQuery } from "~/models/image-proxy.server";
import { TOKEN_EXPIRED, TOKEN_INVALID, TOKEN_NOT_YET_VALID } from "~/utils/token.server";

type Method = "get" | "post" | "put" | "patch" | "delete";

/** One operation: what it does, who may call it, and its input schemas. */
type Operation = { summary: string; query?: z.ZodType; body?: z.ZodType; public?: true };

/** The /api operations by path (OpenAPI path syntax, `{id}` for a path parameter) and method. */
export const API: Record<string, Partial<Record<Method, Operation>>> = {
  "/api/verify": {
    get: {
      summary: "Checks an email and password without opening a session (rate limited).",
      query: verifyQuery,
      public: true,
    },
  },
  "/api/myUser": { get: { summary: "The caller's own user." } },
  "/api/user": {
    get: { summary: "The caller's pending actions: MOC steps waiting on them, oldest wait first." },
    patch: {
      summary: "Changes the caller's own name or password (currentPassword required for a password).",
      body: ownProfileSchema,
    },
  },
  "/api/UserFromDatabase": {
    get: { summary: "The caller's own user, read from the database." },
    put: { summary: "Same as PATCH /api/user.", body: ownProfileSchema },
  },
  "/api/users": {
    get: { summary: "The user directory (any signed-in user)." },
    post: { summary: "Creates a user (admins).", body: newUserSchema },
    put: { summary: "Updates a user (admins).", body: userUpdateSchema },
    delete: { summary: "Deletes a user (admins).", body: userIdBody },
  },
  "/api/newmoc": {
    get: { summary: "The MOCs the caller works on (all for admins and HSEQ); ETag and 304." },
    post: {
      summary: "Creates a MOC with Part A submitted (status b); the implementer is emailed.",
      body: newMocSchema,
    },
  },
  "/api/newImplementer": { post: { summary: "Same as POST /api/newmoc.", body: newMocSchema } },
  "/api/getAllMoc": {
    get: {
      summary:
        "All MOCs for admins, HSEQ and full access; otherwise the completed ones. With format=csv or Accept: text/csv, the list page's rows for its filters (q, status, department, scope, state, overdue, sort) as a streamed CSV.",
    },
  },
  "/api/singlemoc": { get: { summary: "One populated MOC the caller may see.", query: mocIdQuery } },
  "/api/deleteMoC": { delete: { summary: "Soft-deletes a MOC (originator or admin).", query: idQuery("MOC id") } },
  "/api/cloneMoc": { post: { summary: "Clones a MOC into a new one the caller originates.", body: cloneMocSchema } },
  "/api/addUser": { post: { summary: "Puts a person in a role of a MOC (originator or admin).", body: addUserSchema } },
  "/api/createImplementer": {
    post: { summary: "Saves Part B as a draft (implementer).", body: implementerDraftSchema },
  },
  "/api/implementer": {
    get: { summary: "The implementer form of a MOC the caller may see.", query: mocIdQuery },
    post: { summary: "Same as POST /api/createImplementer.", body: implementerDraftSchema },
    put: { summary: "Re-assigns the implementer (originator or admin).", body: reassignImplementerSchema },
  },
  "/api/impact": { post: { summary: "Replaces the impact assessment.", body: impactSchema } },
  "/api/risk_assessment": { post: { summary: "Attaches the risk assessment link.", body: riskAssessmentSchema } },
  "/api/actionTable": { post: { summary: "Replaces the action plan.", body: actionPlanSchema } },
  "/api/manualsPlan": { post: { summary: "Replaces the manuals and drawings plan.", body: manualPlanSchema } },
  // The pipeline: one operation per step, all of it from the step's definition.
  ...Object.fromEntries(
    MOC_STEPS.map((step) => [
      `/api/submit/${step === "deviation-extension" ? "deviation-extention" : step}`,
      { post: { summary: `Submits ${STEPS[step].part}. ${STEPS[step].who.refusal}.`, body: stepBodyShape(step) } },
    ]),
  ),
  "/api/chat": {
    get: { summary: "A chat room's latest 100 messages (or those after `after`).", query: chatQuerySchema },
    post: { summary: "Posts a message as the caller.", body: chatPostSchema },
  },
  "/api/pcr": {
    post: { summary: "Creates a PCR.", body: newPcrSchema },
    put: {
      summary: "Updates a PCR (originator while pending, or admin).",
      query: idQuery("PCR id"),
      body: updatePcrSchema,
    },
    delete: { summary: "Deletes a PCR (originator while pending, or admin).", query: idQuery("PCR id") },
  },
  "/api/pcr/{id}": { get: { summary: "One PCR the caller may see." } },
  "/api/singlePcr": { get: { summary: "One PCR the caller may see.", query: idQuery("PCR id") } },
  "/api/allPcr": {
    get: {
      summary:
        "The PCRs the caller may see. With format=csv or Accept: text/csv, the list page's rows for its filters (q, status, safety, scope) as a streamed CSV.",
    },
  },
  "/api/getAllPcr": { get: { summary: "Same as GET /api/allPcr." } },
  "/api/pcr/summary": { get: { summary: "PCR counts by status." } },
  "/api/pcr/signatures": {
    post: { summary: "Signs the caller's slot of the signature chain.", body: signaturesBodySchema },
  },
  "/api/pcr/affectedParties": {
    post: { summary: "Records an affected party's acknowledgement.", body: affectedPartiesBodySchema },
  },
  "/api/clonePcr": { post: { summary: "Clones a PCR.", body: clonePcrSchema } },
  ...Object.fromEntries(
    (["moc", "pcr"] as const).flatMap((kind) => {
      const base = kind === "moc" ? "/api/oldMoc" : "/api/oldPcr";
      const what = `legacy ${kind.toUpperCase()} record`;
      return [
        [
          base,
          {
            get: {
              summary: `Every ${what}. With format=csv or Accept: text/csv, the archive page's rows for its filters (q, status, department, year, sort, dir) as a streamed CSV.`,
            },
            post: { summary: `Adds a ${what} (admins and HSEQ).`, body: archiveSchemas[kind].create },
            put: { summary: `Replaces a ${what} (admins and HSEQ).`, body: archiveSchemas[kind].replace },
            delete: { summary: `Deletes a ${what} (admins and HSEQ).`, query: idQuery(`${kind.toUpperCase()} id`) },
          },
        ],
        [
          `${base}/{id}`,
          {
            get: { summary: `One ${what}.` },
            patch: { summary: `Changes some fields of a ${what} (admins and HSEQ).`, body: archiveSchemas[kind].patch },
          },
        ],
      ];
    }),
  ),
  "/api/insights": {
    get: {
      summary:
        "The /insights figures for a period and department as JSON (admins, HSEQ, full access), or one table as CSV (format=csv&table=<id>).",
      query: insightsApiQuery,
    },
  },
  "/api/year-end-review": {
    get: { summary: "Every year-end review, or one with `id`.", query: idQuery("review id").partial() },
    post: { summary: "Creates a year-end review (admins and HSEQ).", body: reviewBodySchema },
    put: {
      summary: "Updates a year-end review (admins and HSEQ).",
      query: idQuery("review id"),
      body: reviewBodySchema,
    },
  },
  "/api/auto_reminder": { get: { summary: "Runs today's reminders (Bearer CRON_SECRET, or an admin session)." } },
  "/api/proxy": { get: { summary: "Fetches an image from a public host (signed-in users).", query: proxyQuery } },
  "/api/openapi.json": { get: { summary: "This document.", public: true } },
  "/api/floor": {
    get: { summary: "Benchmarks only (BENCH_FLOOR=1): a constant JSON body; 404 otherwise.", public: true },
  },
};

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

/** Query parameters from an object schema's properties. */
function parameters(query: z.ZodType | undefined, path: string) {
  const fromPath = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  }));
  if (!query) return fromPath;
  const schema = jsonSchema(query) as { properties?: Record<string, unknown>; required?: string[] };
  return [
    ...fromPath,
    ...Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name,
      in: "query",
      required: schema.required?.includes(name) ?? false,
      schema: property,
    })),
  ];
}

const ERROR = { $ref: "#/components/schemas/Error" };
const error = (description: string) => ({ description, content: { "application/json": { schema: ERROR } } });

let built: object | undefined;

/** The whole document (built once: it depends on code only). */
export function openApiDocument(): object {
  built ??= {
    openapi: "3.1.0",
    info: {
      title: "Change Management API",
      version: "1",
      description:
        "Every answer is JSON: `{ status, data }` on success, `{ status, message, issues? }` on an error, " +
        "where each issue is `{ path, message }` with `path` the dotted path in the body or query. " +
        "Sign in with POST /login (form fields email and password, `Accept: application/json`) for a token; " +
        "send it as `Authorization: Bearer <token>` or let the browser send the `session` cookie. " +
        `A refused token is 401 with "${TOKEN_EXPIRED}", "${TOKEN_NOT_YET_VALID}" or "${TOKEN_INVALID}".`,
    },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        cookie: { type: "apiKey", in: "cookie", name: "session" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["status", "message"],
          properties: {
            status: { type: "integer" },
            message: { type: "string" },
            issues: {
              type: "array",
              items: {
                type: "object",
                required: ["path", "message"],
                properties: { path: { type: "string" }, message: { type: "string" } },
              },
            },
          },
        },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths: Object.fromEntries(
      Object.entries(API).map(([path, operations]) => [
        path,
        Object.fromEntries(
          Object.entries(operations).map(([method, op]) => [
            method,
            {
              summary: op.summary,
              ...(op.public ? { security: [] } : {}),
              parameters: parameters(op.query, path),
              ...(op.body
                ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } }
                : {}),
              responses: {
                "200": {
                  description: "`{ status: 200, data }`",
                  content: { "application/json": { schema: { type: "object" } } },
                },
                "400": error("The input is not valid; `issues` lists each problem"),
                ...(op.public ? {} : { "401": error("No valid session"), "403": error("Not allowed for the caller") }),
              },
            },
          ]),
        ),
      ]),
    ),
  };
  return built;
}
