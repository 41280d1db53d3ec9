/**
 * The server Playwright runs: the real production server (app/server/main.ts) on a fresh
 * database: a recreated `cm_e2e` database when DATABASE_URL is set, otherwise a fresh embedded
 * cluster under .data/e2e (uploads go there either way). On a port other than 3100 both names
 * get the port as a suffix (`cm_e2e_3170`, `.data/e2e_3170`).
 */
import fs from "node:fs/promises";
import { createAppDatabase, originalProcess } from "../helpers/databases";
import { E2E_SECRETS } from "./secrets";

const port = process.env.E2E_PORT ?? "3100";
// Separate names let two runs (say, on different ports) share a machine without clobbering each other.
const suffix = port === "3100" ? "" : `_${port}`;
const database = `cm_e2e${suffix}`;
const dataDir = `.data/e2e${suffix}`;

// Uploads (and, without DATABASE_URL, the cluster) go under a fresh data folder of their own.
await fs.rm(dataDir, { recursive: true, force: true });
process.env.DATA_DIR = dataDir;

// The server connects as a role without SUPERUSER, as production must (docs/security.md).
if (process.env.DATABASE_URL) {
  process.env.DATABASE_URL = await createAppDatabase(process.env.DATABASE_URL, database);
}

Object.assign(process.env, {
  NODE_ENV: "production",
  PORT: port,
  HOST: "127.0.0.1",
  APP_URL: `http://127.0.0.1:${port}`,
  ...E2E_SECRETS,
  ADMIN_EMAIL: "admin@e2e.test",
  ADMIN_PASSWORD: "e2e-admin-password",
  // Errors only: Playwright prints the server's output (tests/e2e/playwright.config.ts), so a
  // 500 in a run comes with its cause.
  LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
});
delete process.env.RESEND_API_KEY;

await import("../../app/server/main");

// The journeys here follow the original spec's process: the risk gate is off (tests/helpers/databases.ts
// `originalProcess`); the gate itself is tested in tests/integration/risk-gate.test.ts.
// main() migrates in the background: wait until the server answers, then switch the gate off.
for (let tries = 0; ; tries++) {
  const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  if (tries > 600) throw new Error("The e2e server did not start within 2 minutes");
  await new Promise((resolve) => setTimeout(resolve, 200));
}
await originalProcess(process.env.DATABASE_URL!);
