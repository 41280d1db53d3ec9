/**
 * The development secrets, read the same way by `npm start`, the worker and every script (seed,
 * audit:verify, backup, restore): SESSION_SECRET and AUDIT_KEY from the environment when set;
 * otherwise the random secret the app keeps in DATA_DIR (`session-secret`, `audit-key`), made at
 * the first start (docs/decisions/025-keyed-audit-chain.md). A script that writes (the seed) makes
 * them as `npm start` would, so the app started afterwards reads what the seed signed with; one
 * that only checks (audit:verify, backup, restore) never makes one: a new key verifies nothing.
 * Values are never printed.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { resetEnv } from "~/utils/env.server";

const FILES = { SESSION_SECRET: "session-secret", AUDIT_KEY: "audit-key" } as const;
export type SecretName = keyof typeof FILES;

/** The file in DATA_DIR that keeps a development secret. */
export const secretFile = (dataDir: string, name: SecretName) => path.join(dataDir, FILES[name]);

/**
 * Fills `process.env[name]` for each secret that is unset, from its file in DATA_DIR, or (with
 * `create`) a new random one written there (mode 0600). Returns the names still unset.
 */
export async function loadDevelopmentSecrets(
  dataDir: string,
  options: { create: boolean; names?: readonly SecretName[] },
): Promise<SecretName[]> {
  const missing: SecretName[] = [];
  for (const name of options.names ?? (Object.keys(FILES) as SecretName[])) {
    if (process.env[name]) continue;
    const file = secretFile(dataDir, name);
    if (existsSync(file)) {
      process.env[name] = (await fs.readFile(file, "utf8")).trim();
    } else if (options.create) {
      await fs.mkdir(dataDir, { recursive: true });
      const secret = randomBytes(32).toString("base64url");
      await fs.writeFile(file, secret, { mode: 0o600 });
      process.env[name] = secret;
    } else {
      missing.push(name);
    }
  }
  // The environment read once (app/utils/env.server.ts) is read again with what was filled in.
  resetEnv();
  return missing;
}
