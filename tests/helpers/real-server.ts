/**
 * The real listening server for integration tests: `app/server/main.ts` (what `npm start` runs)
 * as a child process in production mode, on an ephemeral port, against a database of the test's
 * own owned by the app's role (the app refuses a superuser in production, docs/security.md).
 * The production build it serves is made first unless build/ was made from these sources.
 */
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));

/** The production build, made unless build/ was made from these sources (scripts/build-once.ts). */
export async function ensureProductionBuild(): Promise<void> {
  // Without vitest's own variables: vite.config.ts leaves the Remix plugin out under VITEST.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  await run(process.execPath, ["--import", "tsx", path.join(root, "scripts/build-once.ts")], {
    cwd: root,
    env: { ...env, NODE_ENV: "production" },
    maxBuffer: 64 * 1024 * 1024,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type RealServer = {
  url: string;
  output: () => string;
  /** SIGTERM, then the exit: its code (null when a signal ended it). */
  stop: () => Promise<number | null>;
};

/**
 * Starts the server with `env` over this process's environment (DATABASE_URL, SESSION_SECRET and
 * AUDIT_KEY among it, so tokens and audit entries made in the test are the server's too) and
 * waits until `/readyz` answers 200.
 */
export async function startRealServer(env: Record<string, string>): Promise<RealServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "app/server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: url,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 120_000; // a shared, loaded machine can take that long to migrate and start
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not become ready:\n${output}`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
