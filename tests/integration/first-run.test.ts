/**
 * The README's first commands and its demo data on a fresh clone (issue 40 item 16): the app's
 * first start makes its development secrets in DATA_DIR (app/server/secrets.ts), and every script
 * after it reads the same ones, so `npm run db:seed`, `npm run audit:verify` and `npm run backup`
 * work in that order without setting anything. The seed is one transaction: one that fails part
 * way leaves nothing behind, and running it again seeds.
 *
 * The clone is this checkout's files as git sees them (tracked, and new ones not ignored), in a
 * fresh folder with no `.data`, its node_modules hard-linked. The app's start is `bootServices`,
 * what `npm start` runs before it serves the build (secrets, embedded PostgreSQL, migrations, the
 * first admin): the build itself is not needed for the demo data.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, createAppDatabase, withDatabase } from "../helpers/databases";

const exec = promisify(execFile);
let clone: string;
const databases: string[] = [];
const serverUrl = inject("dbServerUrl");

/** The environment of a fresh shell: none of the test run's secrets or database. */
function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["DATABASE_URL", "SESSION_SECRET", "AUDIT_KEY", "DATA_DIR", "LOG_LEVEL", "NODE_ENV", "VITEST"])
    delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith("VITEST_")) delete env[name];
  return { ...env, CI: "", ...extra };
}

/** `npm run <script>` in the clone; its exit code and output (never throws). */
async function npm(script: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec("npm", ["run", "-s", script, ...(args.length ? ["--", ...args] : [])], {
      cwd: clone,
      env,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** What `npm start` does before serving: secrets, embedded PostgreSQL, migrations, first admin; then it stops. */
const START = `
const { bootServices } = await import("./app/server/boot.ts");
const services = await bootServices({ role: "web" });
if (!services) process.exit(1);
await services.stop();
console.log("STARTED AND STOPPED");
process.exit(0);`;

beforeAll(async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cm-first-run-"));
  clone = path.join(root, "change-management");
  const { stdout } = await exec("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = stdout.split("\0").filter((f) => f && existsSync(f));
  for (const file of files) {
    await fs.mkdir(path.join(clone, path.dirname(file)), { recursive: true });
    await fs.copyFile(file, path.join(clone, file));
  }
  await exec("cp", ["-al", "node_modules", path.join(clone, "node_modules")]);
}, 120_000);

afterAll(async () => {
  if (clone) await fs.rm(path.dirname(clone), { recursive: true, force: true });
  for (const name of databases)
    await adminQuery(serverUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`));
});

describe("the README's demo data on a fresh clone", () => {
  it("after the first start: db:seed, audit:verify and backup read the secrets the app made, and a second seed adds nothing", async () => {
    const env = freshEnv({ LOG_LEVEL: "warn" });
    expect(existsSync(path.join(clone, ".data"))).toBe(false);
    const started = await exec(process.execPath, ["--import", "tsx", "--input-type=module", "-e", START], {
      cwd: clone,
      env,
      timeout: 120_000,
    });
    expect(started.stdout).toContain("STARTED AND STOPPED");
    // The development secrets the app made (never printed).
    const key = (await fs.readFile(path.join(clone, ".data", "audit-key"), "utf8")).trim();
    expect(key.length).toBeGreaterThan(20);
    expect(started.stdout + started.stderr).not.toContain(key);

    const seeded = await npm("db:seed", env);
    expect(seeded.code, seeded.out).toBe(0);
    expect(seeded.out).toContain("Demo users (password for every one: demo-password)");
    expect(seeded.out).not.toContain(key);

    const verified = await npm("audit:verify", env);
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toMatch(/every chain holds/);

    const file = path.join(clone, "backups", "first.cmbackup");
    const backup = await npm("backup", env, file);
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toMatch(/^backup: \d+ rows of \d+ tables written/m);

    const again = await npm("db:seed", env);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("Demo data is already there");
  }, 600_000);

  it("with DATABASE_URL: a seed that fails part way leaves nothing, and the next run seeds", async () => {
    const name = `cm_first_run_${process.pid}`;
    databases.push(name);
    const url = await createAppDatabase(serverUrl, name);
    const env = freshEnv({ DATABASE_URL: url, LOG_LEVEL: "warn", DATA_DIR: path.join(clone, ".data-url") });
    await npm("db:migrate", env);
    // A fault from outside the project: the database refuses the demo's chat messages, written
    // after the users, the vessels and the MOCs.
    const admin = withDatabase(serverUrl, name);
    const refuse = `create or replace function refuse_chat() returns trigger language plpgsql as
        $$ begin raise exception 'chat is down for maintenance'; end $$;
      create trigger refuse_chat before insert on chat_messages for each row execute function refuse_chat();`;
    const count = async () => {
      const { default: postgres } = await import("postgres");
      const sql = postgres(admin, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql`select (select count(*)::int from users where email like '%@demo.example.com') as users,
          (select count(*)::int from mocs) as mocs, (select count(*)::int from moc_logs) as logs`;
        return row;
      } finally {
        await sql.end();
      }
    };
    const { default: postgres } = await import("postgres");
    const sql = postgres(admin, { max: 1, onnotice: () => {} });
    await sql.unsafe(refuse);

    const failed = await npm("db:seed", env);
    expect(failed.code, failed.out).not.toBe(0);
    expect(failed.out).toContain("chat is down for maintenance");
    expect(await count()).toEqual({ users: 0, mocs: 0, logs: 0 });

    await sql.unsafe("drop trigger refuse_chat on chat_messages");
    await sql.end();
    const seeded = await npm("db:seed", env);
    expect(seeded.code, seeded.out).toBe(0);
    const after = (await count())!;
    expect(after.users).toBe(12);
    expect(after.mocs).toBeGreaterThanOrEqual(13);
    // The secrets the seed made in DATA_DIR are the ones the checks read.
    const verified = await npm("audit:verify", env);
    expect(verified.code, verified.out).toBe(0);
  }, 600_000);
});
