/**
 * The OpenAPI 3.1 description of /api, served at /api/openapi.json (docs/decisions/031-api-contract.md).
 * Every operation is one entry of an area's list (app/web/openapi/: users, mocs, pcrs, archive,
 * fleet, reports, service), merged into `API` below: its input schemas (the zod schemas the route
 * validates with), its success answer (app/web/openapi/answers.schema.ts) and the error statuses
 * it can answer beyond the ones every operation of its kind has. Everything is converted with zod's
 * `z.toJSONSchema`, so the document changes when a schema does.
 *
 * To add an operation: add its route file and one entry to its area's list (summary, `query`/`body`, `ok`).
 * To add a status to one: append it to the entry's `errors` (`errors: [404, 409, 429]`); a status
 * every write shares goes in `WRITE_ERRORS`, one every signed-in call shares in `SIGNED_IN_ERRORS`.
 * The generic error body (`Error`) and each status's response are described once, in `ERRORS`.
 * Checks: tests/integration/openapi.test.ts (every route file is here with its methods),
 * tests/integration/api-contract.test.ts (every operation's real answers match), `npm run
 * api:check` (redocly lint, and the generated client types are current).
 */
import { z } from "zod";
import {
  loginAnswer,
  mocAnswer,
  pcrAnswer,
  publicUserAnswer,
  signatureManifestationAnswer,
  userRefAnswer,
} from "~/web/openapi/answers.schema";
import { loginSchema } from "~/models/people/user.schema";
import { TOKEN_EXPIRED, TOKEN_INVALID, TOKEN_NOT_YET_VALID } from "~/utils/token.server";
import { SIGN_IN_FIRST } from "./auth.server";
import { MAX_PAGE, pageQuery } from "./paging.server";
import { isCredentialRoute } from "./idempotency.server";
import { SIGNED_IN_ERRORS, WRITE_ERRORS, type ErrorStatus, type Operation, type Operations } from "./openapi/operation";
import { USER_OPERATIONS } from "./openapi/users";
import { MOC_OPERATIONS } from "./openapi/mocs";
import { PCR_OPERATIONS } from "./openapi/pcrs";
import { ARCHIVE_OPERATIONS } from "./openapi/archive";
import { FLEET_OPERATIONS } from "./openapi/fleet";
import { REPORT_OPERATIONS } from "./openapi/reports";
import { SERVICE_OPERATIONS } from "./openapi/service";
import { CIRCULATION_OPERATIONS } from "./openapi/circulations";
import { LINK_OPERATIONS } from "./openapi/links";
import { EFFECTIVENESS_OPERATIONS } from "./openapi/effectiveness";
import { REFERENCE_OPERATIONS } from "./openapi/references";

export type { ErrorStatus, Operation };

/** The /api operations by path and method: every area's, in the document's order. */
export const API: Operations = {
  ...USER_OPERATIONS,
  ...MOC_OPERATIONS,
  ...PCR_OPERATIONS,
  ...ARCHIVE_OPERATIONS,
  ...FLEET_OPERATIONS,
  ...REPORT_OPERATIONS,
  ...SERVICE_OPERATIONS,
  ...CIRCULATION_OPERATIONS,
  ...LINK_OPERATIONS,
  ...REFERENCE_OPERATIONS,
  ...EFFECTIVENESS_OPERATIONS,
};

/** The sign-in: not under /api, but how an API client gets its token. */
const SIGN_IN: Operation & { path: string } = {
  path: "/login",
  summary: "Signs in: a session token (also set as the `session` cookie).",
  description:
    "Send the form fields with `Accept: application/json` for this JSON answer (a browser's form post is redirected instead). Same-origin rule: a cross-site form post is refused (403).",
  public: true,
  body: loginSchema,
  ok: loginAnswer,
  errors: [401, 403, 429],
};

// ---------------------------------------------------------------------------------------------
// Building the document

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  JSON.parse(
    // Shared schemas (`.meta({ id })`) come out as `$defs`, which `lift` moves to the components.
    JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" })).replaceAll(
      '"#/$defs/',
      '"#/components/schemas/',
    ),
  ) as Record<string, unknown>;

/** Moves `$defs` out of a converted schema into the document's components. */
function lift(schema: Record<string, unknown>, components: Record<string, unknown>) {
  const { $defs, $schema: _drop, ...rest } = schema as { $defs?: Record<string, unknown>; $schema?: string };
  void _drop;
  for (const [name, def] of Object.entries($defs ?? {})) components[name] ??= def;
  return rest;
}

/** A plausible value of a JSON Schema, for the examples of parameters and bodies. */
export function exampleOf(schema: unknown, depth = 0, key = ""): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (depth > 8) return null;
  if ("example" in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ("const" in s) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key] as unknown[] | undefined;
    if (options?.length) {
      const notNull = options.find((o) => (o as { type?: string }).type !== "null") ?? options[0];
      return exampleOf(notNull, depth + 1, key);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length && !s.type) return exampleOf(s.allOf[0], depth + 1, key);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string | undefined);
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, exampleOf(v, depth + 1, k)]));
    }
    case "array": {
      const count = Math.max(1, Number(s.minItems ?? 1));
      return Array.from({ length: Math.min(count, 6) }, () => exampleOf(s.items, depth + 1, key));
    }
    case "integer":
    case "number":
      return typeof s.minimum === "number"
        ? s.minimum
        : typeof s.exclusiveMinimum === "number"
          ? s.exclusiveMinimum + 1
          : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return stringExample(s, key);
    default:
      return null;
  }
}

const UUID_EXAMPLE = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

/** Plausible text for a field by its name, where the schema says no more than "a string". */
const BY_NAME: [RegExp, string][] = [
  [/email/i, "kari.nordmann@example.com"],
  [/password/i, "a-long-passphrase-1"],
  [/^name$|_name$|-name$/i, "Kari Nordmann"],
  [/date|due|until/i, "2026-11-25"],
  [/url|risk_assessment|attachments/i, "https://files.example.com/risk-assessment.pdf"],
  [/serial/i, "12-2026"],
];

function stringExample(s: Record<string, unknown>, key = ""): string {
  switch (s.format) {
    case "uuid":
      return UUID_EXAMPLE;
    case "email":
      return "kari.nordmann@example.com";
    case "date":
      return "2026-11-25";
    case "date-time":
      return "2026-11-25T08:30:00.000Z";
    case "uri":
      return "https://images.example.com/deck.png";
  }
  const pattern = typeof s.pattern === "string" ? s.pattern : "";
  if (/^\^\\d(\{[\d,]+\}|\+)\$$/.test(pattern)) return "1";
  if (pattern.includes("\\d{4}-\\d{2}-\\d{2}")) return "2026-11-25";
  if (pattern === "^\\d+-\\d{4}$") return "12-2026";
  if (pattern.startsWith("^[0-9a-fA-F]{8}")) return UUID_EXAMPLE;
  const min = Number(s.minLength ?? 0);
  const named = BY_NAME.find(([test]) => test.test(key))?.[1];
  const text = named && named.length <= Number(s.maxLength ?? Infinity) ? named : "Checked on the bridge";
  return min > text.length ? text.padEnd(min, ".") : text;
}

function parameters(op: Operation, path: string, components: Record<string, unknown>) {
  const fromPath = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    description: "The record's id.",
    schema: { type: "string", format: "uuid" },
    example: UUID_EXAMPLE,
  }));
  const query: Record<string, { schema: unknown; required: boolean }> = {};
  const add = (schema: z.ZodType | undefined, optional = false) => {
    if (!schema) return;
    const json = lift(jsonSchema(schema, "input"), components) as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      query[name] ??= { schema: property, required: !optional && (json.required?.includes(name) ?? false) };
    }
  };
  add(op.query);
  if (op.paged) add(pageQuery);
  if (op.csv) {
    add(op.csv, true);
    query.format ??= {
      schema: { type: "string", enum: ["csv"], description: "Answer CSV (like `Accept: text/csv`)." },
      required: false,
    };
  }
  return [
    ...fromPath,
    ...Object.entries(query).map(([name, { schema, required }]) => {
      const { description, ...rest } = schema as { description?: string };
      return {
        name,
        in: "query",
        required,
        description: description ?? `The \`${name}\` filter.`,
        schema: rest,
        example: exampleOf(rest),
      };
    }),
  ];
}

const ERROR_BODY = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string, schema: object = ERROR_BODY, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
const REPLAYED_HEADER = {
  description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
  schema: { type: "string", enum: ["true"] },
};
/** The header every signed-in write takes (docs/api-contract.md, "Idempotency keys"). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "A key new for each request (8 to 200 visible ASCII characters; a UUID, say). The first answer below 400 is kept " +
    "for this person and key for 24 hours, written with the change; the same request again gets that answer " +
    "(`Idempotent-Replayed: true`) without a second effect, and the same key with another method, path or body is 422. " +
    "A 4xx keeps no key (nothing was done); a request sent while the first is running waits for its answer.",
  schema: { type: "string", minLength: 8, maxLength: 200, pattern: "^[\\x21-\\x7e]+$" },
  example: "9f1c0e52-3b1a-4f5e-8d67-0c2f5a9b1e44",
};
const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } };

/** Every error status's response, described once and referenced by the operations. */
const ERRORS: Record<400 | ErrorStatus, [name: string, response: object]> = {
  304: [
    "NotModified",
    {
      description: "The list has not changed since the ETag sent in If-None-Match (no body).",
      headers: { ETag: { description: "The list's version.", schema: { type: "string" } } },
    },
  ],
  400: [
    "BadRequest",
    errorResponse("The input is not valid; `issues` lists each problem (path `` for the request as a whole).", {
      $ref: "#/components/schemas/ValidationError",
    }),
  ],
  401: [
    "Unauthorized",
    errorResponse(
      `No valid credentials: none at all ("${SIGN_IN_FIRST}"; GET /api/myUser: "${TOKEN_INVALID}"), or a refused token ("${TOKEN_EXPIRED}", "${TOKEN_NOT_YET_VALID}", "${TOKEN_INVALID}").`,
    ),
  ],
  403: ["Forbidden", errorResponse("Not allowed for the caller (or a cross-site write refused).")],
  404: ["NotFound", errorResponse("No such record (or deleted).")],
  405: [
    "MethodNotAllowed",
    errorResponse(
      "Answered on this path to a method the document does not list for it (another method, or TRACE, CONNECT or an unknown one): `Allow` names the methods answered.",
      ERROR_BODY,
      { Allow: { description: "The methods answered.", schema: { type: "string" } } },
    ),
  ],
  409: [
    "Conflict",
    errorResponse("The record is not in a state that allows this (a step already taken, a signed PCR)."),
  ],
  413: ["TooLarge", errorResponse("The body is larger than 1 MiB (or a field over its limit).")],
  415: ["UnsupportedMediaType", errorResponse("The body must be sent as application/json.")],
  422: [
    "IdempotencyKeyReused",
    errorResponse(
      "The Idempotency-Key was used before, by the same person, for another request (another method, path or body); nothing was done.",
    ),
  ],
  429: [
    "TooManyRequests",
    errorResponse("Too many requests; try again after Retry-After seconds.", ERROR_BODY, RETRY_AFTER),
  ],
  431: [
    "HeadersTooLarge",
    errorResponse("The request's headers are too large (more than 16 KiB in all, cookies included)."),
  ],
  503: [
    "Unavailable",
    errorResponse(
      "The database cannot be reached just now; try again after Retry-After seconds. Nothing was changed.",
      ERROR_BODY,
      RETRY_AFTER,
    ),
  ],
  502: ["BadGateway", errorResponse("The other host answered with an error or something that is not an image.")],
  504: ["GatewayTimeout", errorResponse("The other host did not answer in time.")],
};

const TAGS: [tag: string, description: string, test: (path: string) => boolean][] = [
  ["Sign-in", "Getting a session token.", (p) => p === "/login"],
  [
    "Users",
    "People, their own profile and credentials, and the ranks on board.",
    (p) => /^\/api\/(verify|myUser|user|users|UserFromDatabase|ranks)$/.test(p),
  ],
  ["Vessels", "The vessel register and crew assignments.", (p) => p.startsWith("/api/vessels")],
  [
    "MOC pipeline",
    "The steps of a MOC, one operation each.",
    (p) => p.startsWith("/api/submit/") || p === "/api/reportCompletion",
  ],
  [
    "PCRs",
    "Procedure change requests and their signature chain.",
    (p) => /^\/api\/(pcr|singlePcr|allPcr|getAllPcr|clonePcr)\b/.test(p),
  ],
  ["Legacy archive", "Paper-era MOC and PCR records.", (p) => /^\/api\/old(Moc|Pcr)\b/.test(p)],
  [
    "Circulations",
    "Finished changes circulated to vessels and departments for read-and-understood acknowledgement.",
    (p) => /^\/api\/(circulations|acknowledge|myAcknowledgements)$/.test(p),
  ],
  ["Links", "Links between records, read both ways.", (p) => p === "/api/links"],
  [
    "References",
    "External references on records (incidents, work orders…) and their types.",
    (p) => /^\/api\/(references|referenceTypes)$/.test(p),
  ],
  [
    "Effectiveness reviews",
    "A closed MOC's effectiveness review, answered once by the HSEQ department.",
    (p) => p === "/api/effectivenessReview",
  ],
  ["Chat", "The chat room of each MOC and PCR.", (p) => p === "/api/chat"],
  [
    "Reports",
    "Insights, year-end reviews and reminders.",
    (p) => /^\/api\/(insights|reviewPack|year-end-review|auto_reminder)$/.test(p),
  ],
  [
    "Service",
    "Images from other hosts, this document, the benchmark floor.",
    (p) => /^\/api\/(proxy|openapi\.json|floor)$/.test(p),
  ],
  ["MOCs", "Management of change records.", () => true],
];
const tagOf = (path: string) => TAGS.find(([, , test]) => test(path))![0];

/** `get` + `/api/oldMoc/{id}` -> `getOldMocById`: unique, as a path and method are. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\//, "/")
    .split("/")
    .filter(Boolean)
    .map((segment) => (segment.startsWith("{") ? "By-" + segment.slice(1, -1) : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/** The operations that answer without the database (no 503). */
const WITHOUT_DATABASE = new Set(["/api/openapi.json", "/api/floor"]);

function operation(method: string, path: string, op: Operation, components: Record<string, unknown>) {
  const errors = new Set<400 | ErrorStatus>();
  // Any request can be malformed (a URL with a bad percent-encoding is refused before the route),
  // carry too many headers (431, from the HTTP server) or use a method its path does not answer (405).
  [400, 405, 431].forEach((s) => errors.add(s as 400 | ErrorStatus));
  if (!WITHOUT_DATABASE.has(path) && path !== "/login") errors.add(503);
  if (!op.public) SIGNED_IN_ERRORS.forEach((s) => errors.add(s));
  if (op.body) WRITE_ERRORS.forEach((s) => errors.add(s));
  // A signed-in write with a session cookie takes only a JSON body (or none): anything else is 415
  // (app/web/auth.server.ts `assertJsonBody`); bearer callers are not asked.
  if (!op.public && method !== "get") errors.add(415);
  // Every signed-in write takes an Idempotency-Key (app/web/idempotency.server.ts), but the
  // credential routes, which keep nothing (docs/decisions/048-replays-keep-no-credentials.md).
  const keyed = !op.public && method !== "get" && !isCredentialRoute(new URL(path, "http://api.invalid"));
  if (keyed) errors.add(422);
  op.errors?.forEach((s) => errors.add(s));
  const okSchema = lift(jsonSchema(op.ok, "output"), components);
  const okContent: Record<string, unknown> = op.image
    ? {
        "image/*": {
          schema: { type: "string", contentMediaType: "image/*", description: "The image's bytes." },
        },
      }
    : { "application/json": { schema: okSchema } };
  if (op.csv) {
    okContent["text/csv"] = {
      schema: { type: "string", description: "UTF-8 with a byte-order mark; a header row, then one row per record." },
    };
  }
  const okHeaders: Record<string, unknown> = {};
  if (op.paged) {
    okHeaders.Link = {
      description: 'On a page that is not the last: `<address of the next page>; rel="next"`.',
      schema: { type: "string" },
    };
  }
  if (errors.has(304)) {
    okHeaders.ETag = { description: "The list's version, for If-None-Match.", schema: { type: "string" } };
  }
  let requestBody: object | undefined;
  if (op.body) {
    const schema = lift(jsonSchema(op.body, "input"), components);
    const form = path === "/login";
    requestBody = {
      required: true,
      content: {
        [form ? "application/x-www-form-urlencoded" : "application/json"]: {
          schema,
          example: op.example ?? exampleOf(schema),
        },
      },
    };
  }
  return {
    operationId: operationIdOf(method, path),
    tags: [tagOf(path)],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.public ? { security: [] } : {}),
    parameters: [
      ...parameters(op, path, components),
      ...(keyed ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
    ],
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [String(op.okStatus ?? 200)]: {
        description: "Success.",
        ...(Object.keys(okHeaders).length || keyed
          ? { headers: { ...okHeaders, ...(keyed ? { "Idempotent-Replayed": REPLAYED_HEADER } : {}) } }
          : {}),
        content: okContent,
      },
      ...(op.alsoOk
        ? { [String(op.alsoOk)]: { description: "Done before: nothing changed.", content: okContent } }
        : {}),
      ...Object.fromEntries(
        [...errors]
          .sort((a, b) => a - b)
          .map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status][0]}` }]),
      ),
    },
  };
}

let built: Record<string, unknown> | undefined;

/** The whole document (built once: it depends on code only). */
export function openApiDocument(): Record<string, unknown> {
  if (built) return built;
  const schemas: Record<string, unknown> = {
    Error: {
      type: "object",
      description: "Every error's body.",
      required: ["status", "message"],
      properties: {
        status: { type: "integer", description: "The HTTP status again." },
        message: { type: "string", description: "What went wrong, for a person." },
        issues: { $ref: "#/components/schemas/Issues" },
      },
      additionalProperties: false,
    },
    ValidationError: {
      type: "object",
      description: "A 400's body: always with its issues.",
      required: ["status", "message", "issues"],
      properties: {
        status: { const: 400 },
        message: { type: "string" },
        issues: { $ref: "#/components/schemas/Issues" },
      },
      additionalProperties: false,
    },
    Issues: {
      type: "array",
      description: "One entry per problem: `path` is the dotted path in the body or query (`` for the whole request).",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
        additionalProperties: false,
      },
    },
  };
  // Shared answer schemas first, so operations reference them by name.
  for (const shared of [publicUserAnswer, userRefAnswer, signatureManifestationAnswer, mocAnswer, pcrAnswer]) {
    lift(jsonSchema(shared, "output"), schemas);
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, operations] of Object.entries(API)) {
    paths[path] = Object.fromEntries(
      Object.entries(operations).map(([method, op]) => [method, operation(method, path, op, schemas)]),
    );
  }
  const { path: signInPath, ...signIn } = SIGN_IN;
  paths[signInPath] = { post: operation("post", signInPath, signIn, schemas) };
  built = {
    openapi: "3.1.0",
    info: {
      title: "Change Management API",
      version: "1",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description:
        "Success answers are `{ status, data }` unless an operation says otherwise; errors are `{ status, message, issues? }` " +
        "(`issues` on every 400, each `{ path, message }` with `path` the dotted path in the body or query). " +
        "Sign in with POST /login (form fields, `Accept: application/json`) for a token; send it as " +
        "`Authorization: Bearer <token>` or let the browser send the `session` cookie. " +
        `A request without credentials is 401 "${SIGN_IN_FIRST}" (GET /api/myUser: "${TOKEN_INVALID}"); ` +
        `a refused token is 401 with "${TOKEN_EXPIRED}", "${TOKEN_NOT_YET_VALID}" or "${TOKEN_INVALID}". ` +
        "Any path answers a method it does not list with 405 and `Allow`, headers over 16 KiB with 431, and, while the database cannot be reached, 503 with `Retry-After`. " +
        "A write sent with the session cookie must carry its body as `Content-Type: application/json` (415 otherwise). " +
        "Every signed-in write takes an `Idempotency-Key` header: a replay of the same request gets the first answer again, applied once. " +
        `Lists with \`limit\` (1 to ${MAX_PAGE}) and \`cursor\` answer one page and a \`Link: <...>; rel="next"\` header; ` +
        "without them, the whole list.",
    },
    servers: [{ url: "/", description: "The instance serving this document (its APP_URL)." }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
    components: {
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The token POST /login answers." },
        cookie: { type: "apiKey", in: "cookie", name: "session", description: "The session cookie the sign-in sets." },
      },
      schemas,
      // The error responses some operation uses (an entry of ERRORS waits until one does).
      responses: Object.fromEntries(
        Object.values(ERRORS)
          .filter(([name]) => JSON.stringify(paths).includes(`"#/components/responses/${name}"`))
          .map(([name, response]) => [name, response]),
      ),
    },
  };
  return built;
}
