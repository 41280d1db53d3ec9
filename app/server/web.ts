/**
 * The web process (what `npm start` runs, through app/server/main.ts): validate the environment,
 * start embedded PostgreSQL when DATABASE_URL is unset, apply migrations, create the first admin,
 * start the background workers, serve the Remix build. SIGTERM/SIGINT: stop taking requests, finish
 * those in flight, stop the workers, close the pool, stop the embedded database, exit.
 */
import type { ServerBuild } from "@remix-run/node";
import express from "express";
import { trustProxySetting } from "~/utils/client-address.server";
import { logger, requestLogger } from "~/utils/logger.server";
import { BASE_SECURITY_HEADERS } from "~/utils/security-headers.server";
import { bootServices } from "./boot";
import { observability } from "./observability";
import { clientBuild } from "./client-files";
import { dynamicCompression } from "./compression";
import {
  answerClientError,
  errorHandler,
  refuseConnect,
  refuseOtherMethods,
  remixRequestHandler,
} from "./request-handler";

/**
 * Boots the services and serves `build`, whose client files are under `clientDir`, until
 * SIGTERM/SIGINT. Part of the server build itself (app/entry.server.tsx exports it), so the models,
 * jobs and routes exist once in the process, loaded from the bundle (docs/performance.md, "One
 * module graph").
 */
export async function startWebServer(build: ServerBuild, clientDir: string): Promise<void> {
  const services = await bootServices({ role: "web" });
  if (!services) return;
  const { env } = services;
  const log = logger();

  let stopping = false;
  const app = express();
  app.disable("x-powered-by");
  // Headers every answer carries, set from one list made once; once stopping, an answer closes its
  // connection: a kept-alive one would hold the exit back.
  const baseHeaders = Object.entries(BASE_SECURITY_HEADERS);
  app.use((_req, res, next) => {
    for (const [name, value] of baseHeaders) res.setHeader(name, value);
    if (stopping) res.setHeader("Connection", "close");
    next();
  });
  // X-Forwarded-* are believed only from the proxies TRUST_PROXY names (docs/security.md).
  app.set("trust proxy", trustProxySetting(env.TRUST_PROXY));
  // Request ids, HTTP metrics and GET /metrics (app/server/observability.ts).
  app.use(observability(build, { metricsToken: env.METRICS_TOKEN }));
  // Compression (docs/decisions/032-pages-at-sea.md): the build's files were compressed by the
  // build and are served as they are (app/server/client-files.ts); everything else on the fly.
  app.use(dynamicCompression());
  app.use(clientBuild(clientDir));
  // One line per request at `info` (the default); nothing is registered when that level is off.
  const requests = requestLogger();
  if (requests.enabled) {
    app.use((req, res, next) => {
      const started = process.hrtime.bigint();
      res.on("finish", () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // Path only: query strings can carry credentials (GET /api/verify).
        requests.line({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
      });
      next();
    });
  }
  // TRACE, PROPFIND and the like: 405 with Allow (fetch's Request cannot even carry TRACE).
  app.use(refuseOtherMethods());
  // `use`, not `all("*")`: Express would decode the path itself and answer a malformed one with HTML.
  app.use(remixRequestHandler(build, { appUrl: env.APP_URL }));
  app.use(errorHandler(log));

  const server = app.listen(env.PORT, env.HOST ?? "0.0.0.0", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : env.PORT;
    log.info({ port }, "listening");
    console.log(
      `\nChange Management is running: ${env.APP_URL.replace(`:${env.PORT}`, `:${port}`)} (Node ${process.version})\n`,
    );
  });
  // A ship's round trip is 600-800 ms, so a connection closed between two clicks costs one more
  // before the next page (TCP, and TLS behind a proxy). Node's 5 s closed it while a person read
  // the page, and raced a client sending its next request on it as it closed (ECONNRESET for
  // clients that do not read the Keep-Alive header). Two minutes covers a reading pause
  // (docs/decisions/032-pages-at-sea.md, "Connections").
  server.keepAliveTimeout = 120_000;
  // Node's 300 s for a whole request cut a 10 MiB file posted at 64 kbit/s (about 22 minutes);
  // a body that stops arriving is still cut after CLIENT_STALL_SECONDS (decision 027).
  server.requestTimeout = 30 * 60_000;
  // What Node's parser refuses (headers too large, an unknown method, a malformed request) and
  // CONNECT: answered in the app's error shape, not Node's empty bodies or a dropped connection.
  server.on("clientError", answerClientError);
  server.on("connect", refuseConnect);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => {
      log.error("shutdown took longer than 25 s; exiting anyway");
      process.exit(1);
    }, 25_000);
    force.unref();
    await new Promise<void>((resolve) => {
      // A request in flight now leaves its connection idle, kept alive for two minutes, once
      // answered: close each connection as it goes idle, not when it times out.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      server.close(() => {
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    });
    await services.stop();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
