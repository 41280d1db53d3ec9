/**
 * Operations (docs/architecture.md, "Operations"): request ids (from a trusted proxy only, answered,
 * carried into the jobs a request queues), GET /metrics (every family present and moving; refused
 * without the token, from another address or through a proxy), and GET /readyz.
 *
 * The middleware is app/server/observability.ts itself, on a real Express server and socket, in
 * front of a small handler that does what a workflow step does (a transaction queuing an email).
 */
import type { ServerBuild } from "@remix-run/node";
import express from "express";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observability, routeOf, routePatterns, routeResolver } from "../../app/server/observability";
import { sendInTransaction, stopBoss } from "#jobs/boss";
import { deliverEmail } from "#jobs/email";
import { EMAIL_QUEUE } from "#jobs/queues";
import { runDailyReminder } from "#jobs/reminder";
import * as auditRoute from "~/routes/admin+/audit";
import * as readyzRoute from "~/routes/readyz";
import { trustProxySetting } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { currentRequestId } from "~/utils/request-context.server";
import { makeAdmin, tokenFor } from "../helpers/factories";
import { buildRequest, call } from "../helpers/request";

const ROUTES = {
  root: { id: "root", path: "" },
  "routes/_index": { id: "routes/_index", parentId: "root", index: true },
  "routes/mocs+/$id": { id: "routes/mocs+/$id", parentId: "root", path: "mocs/:id" },
  "routes/mocs+/new": { id: "routes/mocs+/new", parentId: "root", path: "mocs/new" },
  "routes/api+/$": { id: "routes/api+/$", parentId: "root", path: "api/*" },
} as unknown as ServerBuild["routes"];

type Server = { url: string; close: () => Promise<void> };

async function serve(options: { trustProxy?: string; metricsToken?: string; host?: string }): Promise<Server> {
  const app = express();
  app.set("trust proxy", trustProxySetting(options.trustProxy));
  app.use(observability({ routes: ROUTES } as ServerBuild, { metricsToken: options.metricsToken }));
  app.post("/mocs/:id", async (_req, res) => {
    // A workflow step: its email job is queued in its transaction.
    const messageId = randomUUID();
    const jobId = await getDb().transaction((tx) => sendInTransaction(tx, EMAIL_QUEUE, { messageId }));
    res.json({ requestId: currentRequestId(), jobId });
  });
  app.get("/mocs/:id", (_req, res) => void res.json({ requestId: currentRequestId() }));
  const server = app.listen(0, options.host ?? "0.0.0.0");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A non-loopback address of this machine, to reach the server as "another address". */
function outsideAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const item of list ?? []) if (item.family === "IPv4" && !item.internal) return item.address;
  }
  return undefined;
}

/** The value of one sample of the exposition text, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.split(" ").pop());
  }
  return 0;
}

let behindProxy: Server;
let direct: Server;
let withToken: Server;

beforeAll(async () => {
  behindProxy = await serve({ trustProxy: "loopback" });
  direct = await serve({});
  withToken = await serve({ metricsToken: "metrics-token-0123456789" });
});

afterAll(async () => {
  await Promise.all([behindProxy.close(), direct.close(), withToken.close()]);
  await stopBoss();
});

describe("request ids", () => {
  it("takes a trusted proxy's X-Request-Id, answers it, and carries it into the job the request queues", async () => {
    const res = await fetch(`${behindProxy.url}/mocs/1`, { method: "POST", headers: { "X-Request-Id": "lb-4f2a9c" } });
    expect(res.headers.get("x-request-id")).toBe("lb-4f2a9c");
    const body = (await res.json()) as { requestId: string; jobId: string };
    expect(body.requestId).toBe("lb-4f2a9c");
    const [job] = await getDb().execute<{ data: { requestId?: string } }>(
      sql`select data from pgboss.job where id = ${body.jobId}`,
    );
    expect(job?.data.requestId).toBe("lb-4f2a9c");
  });

  it("makes its own id when the sender is not a trusted proxy, or the id is malformed", async () => {
    const untrusted = await fetch(`${direct.url}/mocs/1`, { headers: { "X-Request-Id": "client-chosen" } });
    const id = untrusted.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await untrusted.json()) as { requestId: string }).requestId).toBe(id);
    const malformed = await fetch(`${behindProxy.url}/mocs/1`, { headers: { "X-Request-Id": "two words\u00e9" } });
    expect(malformed.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const a = await fetch(`${direct.url}/mocs/1`);
    const b = await fetch(`${direct.url}/mocs/1`);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });
});

describe("GET /metrics", () => {
  it("lists every family, and they move with the requests, emails, reminder runs and audit checks", async () => {
    const before = await (await fetch(`${direct.url}/metrics`)).text();
    for (const family of [
      "http_requests_total",
      "http_request_duration_seconds",
      "cm_db_pool_max_connections",
      "cm_db_connections",
      "cm_jobs",
      "cm_emails_total",
      "cm_reminder_runs_total",
      "cm_audit_verifications_total",
      "cm_backups_total",
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(before, family).toContain(`# TYPE ${family} `);
    }

    // A request to /mocs/<uuid> and one to /mocs/new count under their patterns, not their paths.
    await fetch(`${direct.url}/mocs/${randomUUID()}`);
    await fetch(`${direct.url}/mocs/new`);
    const posted = (await (await fetch(`${direct.url}/mocs/2`, { method: "POST" })).json()) as { jobId: string };
    // The queued job's message does not exist: the worker completes it as "missing". A real one:
    const [row] = await getDb().execute<{ id: string }>(sql`
      insert into email_messages (to_email, subject, html, text, status)
      values ('someone@example.com', 'Hello', '<p>Hi</p>', 'Hi', 'queued') returning id`);
    expect(await deliverEmail(row!.id)).toBe("sent");
    await runDailyReminder(new Date("2031-02-03T08:00:00Z"));
    const admin = await makeAdmin();
    const request = await buildRequest({ path: "/admin/audit", token: await tokenFor(admin), cookie: true });
    expect(await auditRoute.loader({ request, params: {}, context: {} })).toMatchObject({ broken: [] });

    const after = await (await fetch(`${direct.url}/metrics`)).text();
    const get = { method: "GET", route: "/mocs/:id", status: "200" };
    expect(sample(after, "http_requests_total", get)).toBe(sample(before, "http_requests_total", get) + 1);
    expect(sample(after, "http_requests_total", { route: "/mocs/new" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "http_request_duration_seconds_count", get)).toBeGreaterThan(0);
    expect(after).not.toContain(`route="/mocs/2"`);
    expect(sample(after, "cm_emails_total", { outcome: "sent" })).toBe(
      sample(before, "cm_emails_total", { outcome: "sent" }) + 1,
    );
    expect(sample(after, "cm_jobs", { queue: "email", state: "created" })).toBeGreaterThan(0);
    expect(posted.jobId).toBeTruthy();
    expect(sample(after, "cm_reminder_runs_total", { outcome: "ran" })).toBe(
      sample(before, "cm_reminder_runs_total", { outcome: "ran" }) + 1,
    );
    expect(sample(after, "cm_audit_verifications_total", { result: "holds" })).toBe(
      sample(before, "cm_audit_verifications_total", { result: "holds" }) + 1,
    );
    expect(sample(after, "cm_db_connections", { application: "change-management" })).toBeGreaterThan(0);
    expect(sample(after, "cm_db_pool_max_connections")).toBeGreaterThan(0);
  });

  it("is refused through a proxy or from another address without METRICS_TOKEN, and without the right token", async () => {
    const proxied = await fetch(`${direct.url}/metrics`, { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
    expect(await proxied.text()).not.toContain("# TYPE");
    const outside = outsideAddress();
    if (outside) {
      const port = new URL(direct.url).port;
      const remote = await fetch(`http://${outside}:${port}/metrics`);
      expect(remote.status).toBe(403);
    }

    const none = await fetch(`${withToken.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const wrong = await fetch(`${withToken.url}/metrics`, { headers: { Authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${withToken.url}/metrics`, {
      headers: { Authorization: "Bearer metrics-token-0123456789" },
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("# TYPE http_requests_total counter");
  });

  it("names routes by the build's patterns, static segments first", () => {
    const patterns = routePatterns(ROUTES);
    expect(routeOf(patterns, "/")).toBe("/");
    expect(routeOf(patterns, "/mocs/new")).toBe("/mocs/new");
    expect(routeOf(patterns, "/mocs/3f1c")).toBe("/mocs/:id");
    expect(routeOf(patterns, "/api/anything/at/all")).toBe("/api/*");
    expect(routeOf(patterns, "/assets/entry-abc.js")).toBe("/assets/*");
    expect(routeOf(patterns, "/nowhere")).toBe("unmatched");
  });

  it("answers each path as trying every pattern in order would, static paths from a table made once", () => {
    // An optional parameter ranks /reports/:year? before /reports; splats, cases and trailing slashes.
    const routes = {
      ...ROUTES,
      "routes/reports": { id: "routes/reports", parentId: "root", path: "reports" },
      "routes/reports.$year": { id: "routes/reports.$year", parentId: "root", path: "reports/:year?" },
      "routes/api+/floor": { id: "routes/api+/floor", parentId: "root", path: "api/floor" },
      "routes/api+/mocs.$id": { id: "routes/api+/mocs.$id", parentId: "root", path: "api/mocs/:id" },
      "routes/$": { id: "routes/$", parentId: "root", path: "*" },
    } as unknown as ServerBuild["routes"];
    const patterns = routePatterns(routes);
    const resolve = routeResolver(patterns);
    const everyPattern = (path: string) => patterns.find((p) => p.regex.test(path))?.pattern ?? "unmatched";
    const paths = ["/", "//", "/reports", "/Reports/", "/reports/2026", "/api/floor", "/API/Floor/", "/api/mocs/1"];
    paths.push("/api/mocs", "/api/other/x", "/mocs/new", "/mocs/NEW/", "/mocs/9", "/nowhere", "/a/b/c", "/assets/x.js");
    for (const path of paths)
      expect(resolve(path), path).toBe(path.startsWith("/assets/") ? "/assets/*" : everyPattern(path));
    expect(resolve("/reports")).toBe("/reports/:year?");
    expect(resolve("/api/floor")).toBe("/api/floor");
  });
});

describe("GET /readyz", () => {
  it("is ready when the database answers and every migration is applied; not while one is missing", async () => {
    const ready = await call(readyzRoute, { path: "/readyz" });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready", database: "ok", migrations: "current" });

    const [last] = await getDb().execute<{ id: number; hash: string; created_at: string }>(
      sql`select id, hash, created_at::text from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    );
    await getDb().execute(sql`delete from drizzle.__drizzle_migrations where id = ${last!.id}`);
    try {
      const pending = await call(readyzRoute, { path: "/readyz" });
      expect(pending.status).toBe(503);
      expect(pending.body).toMatchObject({ status: "unavailable", migrations: "pending", pending: 1 });
    } finally {
      await getDb().execute(
        sql`insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${last!.id}, ${last!.hash}, ${last!.created_at}::bigint)`,
      );
    }
  });
});
