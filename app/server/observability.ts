/**
 * What an operator watches (docs/architecture.md, "Operations"): a request id for every request,
 * HTTP metrics by route pattern, and GET /metrics.
 *
 * - The id comes from `X-Request-Id` when a proxy TRUST_PROXY trusts sent a well-formed one, else
 *   a new UUID; it is answered in `X-Request-Id`, carried by every log line written while serving
 *   the request (app/utils/logger.server.ts) and by the jobs the request queues (jobs/boss.ts).
 * - Requests are counted and timed by the route pattern Remix matched (`/mocs/:id`), never by the
 *   raw path, so the metrics' cardinality stays that of the route table.
 * - GET /metrics answers with METRICS_TOKEN as a bearer token; without METRICS_TOKEN, only to a
 *   client on this machine that came through no proxy.
 */
import type { ServerBuild } from "@remix-run/node";
import type { NextFunction, Request, Response } from "express";
import { timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";
import { metrics } from "~/utils/metrics.server";
import { requestIdFrom, withRequestId } from "~/utils/request-context.server";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

type Pattern = { pattern: string; regex: RegExp; splat: boolean; segments: number; statics: number };

/** Every URL pattern of the build's routes, most specific first (static segments beat parameters). */
export function routePatterns(routes: ServerBuild["routes"]): Pattern[] {
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return route.path ? `${parent}/${route.path}` : parent;
  };
  const patterns = new Map<string, Pattern>();
  for (const route of Object.values(routes)) {
    if (!route || (!route.path && !route.index)) continue;
    const path = fullPath(route.id).replace(/\/+/g, "/").replace(/\/$/, "") || "/";
    const segments = path.split("/").filter(Boolean);
    const source = segments
      .map((segment) => {
        if (segment === "*") return "(?:/.*)?";
        if (segment.startsWith(":")) return segment.endsWith("?") ? "(?:/[^/]+)?" : "/[^/]+";
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      })
      .join("");
    patterns.set(path, {
      pattern: path,
      regex: new RegExp(`^${source || "/"}/?$`, "i"),
      splat: segments.includes("*"),
      segments: segments.length,
      statics: segments.filter((s) => s !== "*" && !s.startsWith(":")).length,
    });
  }
  return [...patterns.values()].sort(
    (a, b) => Number(a.splat) - Number(b.splat) || b.statics - a.statics || b.segments - a.segments,
  );
}

/**
 * The pattern a path is counted under: the first of `patterns` (in their order) that matches it.
 * A path that spells a pattern without parameters (`/api/floor`, `/mocs/new`, in any case, with or
 * without a trailing slash) has its answer worked out once, here; any other path is tried against
 * the patterns with parameters only. Nothing is kept per path a client sends.
 */
export function routeResolver(patterns: Pattern[]): (path: string) => string {
  const scan = (list: Pattern[], path: string) => list.find((p) => p.regex.test(path))?.pattern ?? "unmatched";
  const dynamic = patterns.filter((p) => p.splat || p.pattern.includes(":"));
  // What a static pattern's expression (`^/a/b/?$`, case-insensitive) matches, as one key.
  const keyOf = (path: string) => {
    const lower = path.toLowerCase();
    return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
  };
  const statics = new Map<string, string>();
  for (const p of patterns) {
    const key = keyOf(p.pattern);
    if (!dynamic.includes(p) && !statics.has(key)) statics.set(key, scan(patterns, p.pattern));
  }
  return (path) => {
    if (path.startsWith("/assets/")) return "/assets/*";
    return statics.get(keyOf(path)) ?? scan(dynamic, path);
  };
}

/** A path's pattern (tests and one-off callers; a server keeps one `routeResolver`). */
export function routeOf(patterns: Pattern[], path: string): string {
  return routeResolver(patterns)(path);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === "loopback";
  } catch {
    return false;
  }
}

/** Whether this request may read /metrics; a reason (and status) when not. */
export function metricsAccess(req: Request, token: string | undefined): { ok: true } | { ok: false; status: number } {
  if (token) {
    const header = req.get("authorization") ?? "";
    const given = /^Bearer (.+)$/i.exec(header)?.[1]?.trim() ?? "";
    return sameToken(given, token) ? { ok: true } : { ok: false, status: 401 };
  }
  // A local proxy forwards others' requests from loopback: those say so in their headers.
  const proxied = ["x-forwarded-for", "forwarded", "x-real-ip"].some((name) => req.headers[name] !== undefined);
  return !proxied && isLoopback(req.socket.remoteAddress) ? { ok: true } : { ok: false, status: 403 };
}

/** Express middleware: request id, HTTP metrics, and GET /metrics. Mount before everything else. */
export function observability(build: ServerBuild, options: { metricsToken?: string }) {
  const routeOfPath = routeResolver(routePatterns(build.routes));
  const { http, registry } = metrics();
  // One child per (method, route, status), bound once: prom-client hashes a label object on every
  // call otherwise. Routes are the build's patterns, so the set stays that of the route table.
  type Bound = { count: { inc: () => void }; time: { observe: (seconds: number) => void } };
  const bound = new Map<string, Bound>();
  const record = (method: string, route: string, status: string, seconds: number) => {
    const key = `${method} ${status} ${route}`;
    let child = bound.get(key);
    if (!child) {
      child = { count: http.requests.labels(method, route, status), time: http.duration.labels(method, route, status) };
      bound.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    const trust = req.app.get("trust proxy fn") as (address: string, hop: number) => boolean;
    const fromProxy = trust(req.socket.remoteAddress ?? "", 0);
    const requestId = requestIdFrom(fromProxy ? req.get("x-request-id") : undefined);
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);

    const started = process.hrtime.bigint();
    res.once("finish", () => {
      record(
        METHODS.has(req.method) ? req.method : "other",
        req.path === "/metrics" ? "/metrics" : routeOfPath(req.path),
        String(res.statusCode),
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });

    if (req.path === "/metrics" && (req.method === "GET" || req.method === "HEAD")) {
      res.setHeader("Cache-Control", "no-store");
      const access = metricsAccess(req, options.metricsToken);
      if (!access.ok) {
        if (access.status === 401) res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
        res
          .status(access.status)
          .type("text/plain")
          .send(
            access.status === 401
              ? "metrics: send METRICS_TOKEN as a bearer token\n"
              : "metrics: only from this machine, unless METRICS_TOKEN is set\n",
          );
        return;
      }
      try {
        const body = await registry.metrics();
        res.type(registry.contentType).send(body);
      } catch (error) {
        next(error);
      }
      return;
    }
    withRequestId(requestId, next);
  };
}
