/**
 * The server Playwright runs: the real production server (app/server/main.ts) on a fresh
 * database: a recreated `cm_e2e` database when DATABASE_URL is set, otherwise a fresh embedded
 * cluster under .data/e2e.
 */
import fs from "node:fs/promises";
import { adminQuery, withDatabase } from "../helpers/databases";

const port = process.env.E2E_PORT ?? "3100";

if (process.env.DATABASE_URL) {
  const server = process.env.DATABASE_URL;
  await adminQuery(server, async (sql) => {
    await sql.unsafe(`drop database if exists cm_e2e with (force)`);
    await sql.unsafe(`create database cm_e2e`);
  });
  process.env.DATABASE_URL = withDatabase(server, "cm_e2e");
} else {
  await fs.rm(".data/e2e", { recursive: true, force: true });
  process.env.DATA_DIR = ".data/e2e";
}

Object.assign(process.env, {
  NODE_ENV: "production",
  PORT: port,
  HOST: "127.0.0.1",
  APP_URL: `http://127.0.0.1:${port}`,
  SESSION_SECRET: "e2e-session-secret-0123456789-0123456789",
  ADMIN_EMAIL: "admin@e2e.test",
  ADMIN_PASSWORD: "e2e-admin-password",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
});
delete process.env.RESEND_API_KEY;

await import("../../app/server/main");
