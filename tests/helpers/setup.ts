// The app's record kinds, as every entry point registers them (docs/decisions/060-record-kinds.md).
import "~/models/kinds/record-kinds.server";
import { afterAll, inject } from "vitest";
import { closeDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { resetEnv } from "~/utils/env.server";
import { cloneDatabase, dropDatabase, withDatabase } from "./databases";

const serverUrl = inject("dbServerUrl");
const database = await cloneDatabase(serverUrl, inject("dbTemplate"));

process.env.DATABASE_URL = withDatabase(serverUrl, database);
process.env.SESSION_SECRET = "test-secret-0123456789-0123456789-abcdef";
process.env.AUDIT_KEY = "test-audit-key-0123456789-0123456789-abcdef";
process.env.APP_URL = "http://localhost:3000";
process.env.LOG_LEVEL = "silent";
delete process.env.RESEND_API_KEY;
delete process.env.ADMIN_EMAIL;
delete process.env.ADMIN_PASSWORD;
resetEnv();

afterAll(async () => {
  await stopBoss();
  await closeDb();
  await dropDatabase(serverUrl, database);
});
