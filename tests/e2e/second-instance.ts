/**
 * A second app instance for browser tests: the same production build and entry point as the
 * server Playwright starts (tests/e2e/server.ts), on another port, against the same database.
 * Several instances sharing one database is how the app is deployed (README.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { asAppRole, withDatabase } from "../helpers/databases";
import { E2E_SECRETS } from "./secrets";

const root = fileURLToPath(new URL("../../", import.meta.url));
const port = process.env.E2E_PORT ?? "3100";
const suffix = port === "3100" ? "" : `_${port}`;

/**
 * The database the Playwright server uses, worked out the way tests/e2e/server.ts chose it: the
 * `cm_e2e` database on DATABASE_URL's server, or the embedded cluster under .data/e2e (its port
 * is in postmaster.pid, its password in the data folder).
 */
export async function e2eDatabaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return asAppRole(withDatabase(process.env.DATABASE_URL, `cm_e2e${suffix}`));
  const dataDir = path.join(root, `.data/e2e${suffix}`);
  const lockFile = path.join(dataDir, "pg", "postmaster.pid");
  if (!existsSync(lockFile)) throw new Error(`no embedded PostgreSQL running under ${dataDir}`);
  const pgPort = (await fs.readFile(lockFile, "utf8")).split("\n")[3]?.trim();
  // The app's own role (db/embedded.ts), as the first instance connects.
  const password = (await fs.readFile(path.join(dataDir, "pg-app-password"), "utf8")).trim();
  return `postgres://cm_app:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/app`;
}

/**
 * The e2e database server as its superuser (database `postgres`): for a spec that makes a database
 * of its own, owned by the app's role (the app refuses a superuser in production, decision 025).
 */
export async function e2eAdminUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return withDatabase(process.env.DATABASE_URL, "postgres");
  const dataDir = path.join(root, `.data/e2e${suffix}`);
  const pgPort = (await fs.readFile(path.join(dataDir, "pg", "postmaster.pid"), "utf8")).split("\n")[3]?.trim();
  const password = (await fs.readFile(path.join(dataDir, "pg-password"), "utf8")).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/postgres`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export type Instance = { url: string; stop: () => Promise<void> };

/**
 * Starts `node app/server/main.ts` on `options.port` or a free one, against the e2e database (or
 * `options.databaseUrl`), with `options.env` added to its environment; resolves once /healthz answers.
 */
export async function startSecondInstance(
  options: { port?: number; databaseUrl?: string; env?: Record<string, string> } = {},
): Promise<Instance> {
  const databaseUrl = options.databaseUrl ?? (await e2eDatabaseUrl());
  const instancePort = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${instancePort}`;
  const dataDir = options.env?.DATA_DIR ?? path.join(root, `.data/e2e${suffix}_second_${instancePort}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    PORT: String(instancePort),
    HOST: "127.0.0.1",
    APP_URL: url,
    // The same secret as the first instance (tests/e2e/server.ts): a session works on both.
    ...E2E_SECRETS,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...options.env,
  };
  // The first instance made the admin; mail stays in the local outbox.
  for (const key of ["ADMIN_EMAIL", "ADMIN_PASSWORD", "RESEND_API_KEY"]) delete env[key];
  Object.assign(env, options.env);
  let output = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "app/server/main.ts"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  child.stdout?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await fs.rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second instance exited: ${output.trim()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the second instance did not answer /healthz: ${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, stop };
}
