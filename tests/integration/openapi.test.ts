/**
 * GET /api/openapi.json (app/web/openapi.server.ts) against the route files themselves: every
 * /api route file is in the document with exactly the methods it answers (any other method is
 * 405), and every path in the document has its route file.
 */
import { readdirSync } from "node:fs";
import { ACCESS_LEVELS, DEPARTMENTS, ROLES } from "#db/schema/enums";
import { describe, expect, it } from "vitest";
import { API, openApiDocument } from "~/web/openapi.server";
import * as openapiRoute from "~/routes/api+/openapi[.]json";
import * as apiNotFound from "~/routes/api+/$";
import { call } from "../helpers/request";

const ROUTES_DIR = new URL("../../app/routes/api+/", import.meta.url);
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** `api+/oldMoc.$id.ts` -> `/api/oldMoc/{id}`, `api+/openapi[.]json.ts` -> `/api/openapi.json`. */
const pathOf = (file: string) =>
  "/api/" +
  file
    .replace(/\.tsx?$/, "")
    .replace(/\[\.\]/g, "~")
    .split(".")
    .map((segment) => (segment.startsWith("$") ? `{${segment.slice(1)}}` : segment))
    .join("/")
    .replace(/~/g, ".");

// `$.ts` answers every /api address no other route matches (a JSON 404), so it is not in the document.
const ROUTE_FILES = readdirSync(ROUTES_DIR).filter((file) => /\.tsx?$/.test(file) && file !== "$.ts");

type RouteModule = Parameters<typeof call>[0];

/** The methods a route module answers: any status but 405 to a call without credentials. */
async function methodsOf(module: RouteModule, path: string): Promise<string[]> {
  const answered: string[] = [];
  for (const method of METHODS) {
    const handler = method === "get" ? module.loader : module.action;
    if (!handler) continue;
    const res = await call(module, { method: method.toUpperCase(), path: path.replace(/\{\w+\}/g, "x") });
    if (res.status !== 405) answered.push(method);
  }
  return answered;
}

describe("GET /api/openapi.json", () => {
  it("serves the OpenAPI 3.1 document, to anyone", async () => {
    // `call`, not `api`: the document's examples show password fields (placeholders, no secret).
    const res = await call(openapiRoute, { path: "/api/openapi.json" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.text).not.toContain("$argon2");
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(res.body.openapi).toBe("3.1.0");
  });

  it("an /api address no route serves answers a JSON 404, for every method", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const res = await call(apiNotFound, { method, path: "/api/no/such/route" });
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ status: 404, message: expect.stringContaining("No API route at /api/no/such/route") });
    }
  });

  it("finds route files to check (the test is not vacuous)", () => {
    expect(ROUTE_FILES.length).toBeGreaterThan(40);
    expect(pathOf("oldMoc.$id.ts")).toBe("/api/oldMoc/{id}");
    expect(pathOf("openapi[.]json.ts")).toBe("/api/openapi.json");
  });

  it.each(ROUTE_FILES)("%s is documented with exactly the methods it answers", async (file) => {
    const path = pathOf(file);
    const module = (await import(`../../app/routes/api+/${file.replace(/\.ts$/, "")}.ts`)) as RouteModule;
    expect(Object.keys(API), `${path} is missing from the document`).toContain(path);
    expect(await methodsOf(module, path)).toEqual(METHODS.filter((m) => API[path]![m]));
  });

  it("every path in the document has its route file", () => {
    const served = new Set(ROUTE_FILES.map(pathOf));
    for (const path of Object.keys(API)) expect(served, path).toContain(path);
  });

  it("bodies and query parameters are the routes' zod schemas as JSON Schema", () => {
    const doc = openApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: object }> };
            parameters: { name: string; required: boolean }[];
          }
        >
      >;
    };
    const hseq = doc.paths["/api/submit/hseq"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(hseq).toMatchObject({ type: "object", required: ["moc_id", "hseq_form"] });
    expect(doc.paths["/api/singlemoc"]!.get!.parameters).toEqual([
      expect.objectContaining({ name: "moc_id", in: "query", required: true }),
    ]);
    expect(doc.paths["/api/oldMoc/{id}"]!.get!.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true }),
    ]);
  });

  it("every documented example body is one the route's schema takes", () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example: unknown }> } }>>;
    };
    const refused: string[] = [];
    for (const [path, operations] of Object.entries(API)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!op.body) continue;
        const example = doc.paths[path]![method]!.requestBody!.content["application/json"]!.example;
        const parsed = op.body.safeParse(example);
        if (!parsed.success) refused.push(`${method.toUpperCase()} ${path}: ${JSON.stringify(parsed.error.issues)}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it("lists 405, 431 and 503 where they can occur, each with its headers", () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
      components: { responses: Record<string, { headers?: Record<string, unknown> }> };
    };
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const statuses = Object.keys(op.responses);
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["405", "431"]));
        // Every operation but the two that never ask the database (and /login, a page's action).
        if (!["/api/openapi.json", "/api/floor", "/login"].includes(path)) expect(statuses, path).toContain("503");
      }
    }
    expect(doc.components.responses.MethodNotAllowed!.headers).toHaveProperty("Allow");
    expect(doc.components.responses.Unavailable!.headers).toHaveProperty("Retry-After");
    expect(doc.components.responses.HeadersTooLarge).toBeDefined();
  });

  it("a person's role, department and access are enums of the values the database takes", () => {
    const doc = openApiDocument() as {
      components: { schemas: Record<string, { properties: Record<string, object> }> };
    };
    for (const schema of ["User", "UserRef"]) {
      const { properties } = doc.components.schemas[schema]!;
      expect(properties.role, schema).toMatchObject({ enum: [...ROLES] });
      expect(properties.department, schema).toMatchObject({ enum: [...DEPARTMENTS] });
      expect(properties.access, schema).toMatchObject({ enum: [...ACCESS_LEVELS] });
    }
    // No other property of those names in the document is a bare string (the paper archive's free-text
    // department and a signer's chain role aside).
    const loose: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "properties" && value && typeof value === "object") {
          for (const [name, property] of Object.entries(value as Record<string, object>)) {
            if (["role", "department", "access"].includes(name) && !JSON.stringify(property).includes('"enum"'))
              loose.push(`${where}/${name}`);
          }
        }
        walk(value, `${where}/${key}`);
      }
    };
    walk(doc, "#");
    expect(
      loose.filter((p) => !/LegacyRecord|\/api\/oldMoc|SignatureManifestation|substitutes|Insights/.test(p)),
    ).toEqual([]);
  });
});
