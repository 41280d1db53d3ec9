/**
 * The secrets of the browser tests' server (tests/e2e/server.ts) and its second instance: the
 * commands a test runs against that server's database (`npm run backup`) need the same audit key.
 */
export const E2E_SECRETS = {
  SESSION_SECRET: "e2e-session-secret-0123456789-0123456789",
  AUDIT_KEY: "e2e-audit-key-0123456789-0123456789-abcdef",
};
