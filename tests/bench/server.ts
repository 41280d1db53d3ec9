/** The benchmark's database and server: a fresh `cm_bench` database, the production server on it. */
import { readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { runningEmbeddedServer, startEmbeddedPostgres } from "../../db/embedded";
import { createAppDatabase, dropDatabase } from "../helpers/databases";

/** BENCH_DATABASE names another database, so two benchmarks on one shared server do not collide. */
export const BENCH_DATABASE = process.env.BENCH_DATABASE ?? "cm_bench";
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(BENCH_DATABASE)) throw new Error("BENCH_DATABASE must be a plain lower-case name");
const EMBEDDED_DIR = ".data/bench";

export type BenchDatabase = { url: string; where: string; close: () => Promise<void> };

/** DATABASE_URL's server when set, otherwise an embedded PostgreSQL under .data/bench. */
export async function openDatabase(): Promise<BenchDatabase> {
  // Owned by a role without SUPERUSER, which migrates, loads and serves it: the production server
  // refuses a superuser (docs/security.md).
  const recreate = (serverUrl: string) => createAppDatabase(serverUrl, BENCH_DATABASE);
  const keep = process.env.BENCH_KEEP_DB === "1";

  if (process.env.DATABASE_URL) {
    const serverUrl = process.env.DATABASE_URL;
    const url = await recreate(serverUrl);
    const host = new URL(serverUrl).host;
    return {
      url,
      where: `database ${BENCH_DATABASE} on ${host} (DATABASE_URL's server)`,
      close: () => (keep ? Promise.resolve() : dropDatabase(serverUrl, BENCH_DATABASE)),
    };
  }
  const pid = await runningEmbeddedServer(EMBEDDED_DIR);
  if (pid) throw new Error(`${EMBEDDED_DIR} is in use (PostgreSQL pid ${pid}): is another benchmark running?`);
  const embedded = await startEmbeddedPostgres({ dataDir: EMBEDDED_DIR, database: "postgres", superuser: true });
  let url: string;
  try {
    url = await recreate(embedded.url);
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return {
    url,
    where: `embedded PostgreSQL in ${EMBEDDED_DIR}`,
    async close() {
      if (!keep) await dropDatabase(embedded.url, BENCH_DATABASE).catch(() => {});
      await embedded.stop();
    },
  };
}

/** The production build unless build/ was made from these sources (scripts/build-once.ts), quietly; its output is shown only when it fails. */
export async function build(): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/build-once.ts"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    const head = output.trim().split("\n").slice(0, 30).join("\n");
    throw new Error(`the build failed (BENCH_SKIP_BUILD=1 reuses an existing build/):\n${head}`);
  }
}

export type BenchServer = { base: string; pid: number; stop: () => Promise<void>; output: () => string };

/**
 * Node's flags as `npm start` passes them (package.json's start script), or BENCH_NODE_FLAGS's
 * (space-separated) to compare others.
 */
function startFlags(): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(" ").filter(Boolean);
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  const flags = pkg.scripts.start.match(/\bnode((?: --[\w-]+(?:=\S+)?)*) app\/server\/main\.ts/);
  if (!flags)
    throw new Error(`package.json's start script does not run node ... app/server/main.ts: ${pkg.scripts.start}`);
  return flags[1]!.split(" ").filter(Boolean);
}

/** The real production entry (what `npm start` runs after its build), with the floor route on. */
export async function startServer(options: { databaseUrl: string; port: number }): Promise<BenchServer> {
  const base = `http://127.0.0.1:${options.port}`;
  const inUse = await fetch(`${base}/healthz`).then(
    () => true,
    () => false,
  );
  if (inUse) throw new Error(`port ${options.port} is already in use: set BENCH_PORT`);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(options.port),
    HOST: "127.0.0.1",
    APP_URL: base,
    SESSION_SECRET: "bench-session-secret-0123456789-0123456789",
    AUDIT_KEY: "bench-audit-key-0123456789-0123456789-abcdef",
    DATABASE_URL: options.databaseUrl,
    LOG_LEVEL: "warn",
    BENCH_FLOOR: "1",
  };
  delete env.RESEND_API_KEY;
  delete env.ADMIN_EMAIL;
  delete env.ADMIN_PASSWORD;
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (open it in
  // Chrome's DevTools), to see where a scenario's time goes.
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...startFlags(), "app/server/main.ts"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited during start:\n${output}`);
    const ok = await fetch(`${base}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer /healthz within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, pid: child.pid!, stop, output: () => output };
}

/** A session token through the real sign-in (POST /login asking for JSON). */
export async function login(base: string, email: string, password: string): Promise<string> {
  return (await signIn(base, email, password)).token;
}

/** Signs in through /login: the token, and the `Cookie` header a browser would send afterwards. */
export async function signIn(
  base: string,
  email: string,
  password: string,
): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${base}/login`, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in as ${email} failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`sign-in as ${email} returned no token`);
  return { token: body.token, cookie: (res.headers.get("Set-Cookie") ?? "").split(";")[0]! };
}
