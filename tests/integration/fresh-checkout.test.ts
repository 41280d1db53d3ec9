/**
 * The embedded PostgreSQL from a checkout the `postgres` OS user cannot enter (docs/security.md,
 * "Running as root"): root's home and `mktemp -d` folders are 0700. A copy of this checkout's
 * `db/` and `package.json` with its node_modules (hard links, so it takes seconds) goes into a
 * fresh `mktemp -d` folder, and the server is started from there twice, as `npm start` would:
 * the data written by the first run is there in the second. And the same data folder kind of
 * start for an ordinary user, whose server runs as that user.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const temporary: string[] = [];

afterAll(async () => {
  for (const dir of temporary) await fs.rm(dir, { recursive: true, force: true });
});

/** Starts the embedded server on `.data` under `cwd`, adds a row, prints the row count, stops. */
const SCRIPT = `
import("./db/embedded.ts").then(async ({ startEmbeddedPostgres }) => {
  const { default: postgres } = await import("postgres");
  const db = await startEmbeddedPostgres({ dataDir: process.env.DATA_DIR, log: (m) => console.log(m) });
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  await sql\`create table if not exists visits (at timestamptz default now())\`;
  await sql\`insert into visits default values\`;
  const [row] = await sql\`select count(*)::int as n from visits\`;
  console.log("VISITS " + row.n);
  await sql.end();
  await db.stop();
});`;

async function start(cwd: string, env: Record<string, string>, user?: { uid: number; gid: number }) {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "-e", SCRIPT], {
    cwd,
    env: { ...process.env, ...env },
    timeout: 60_000,
    ...(user ?? {}),
  });
  return { visits: Number(stdout.match(/VISITS (\d+)/)?.[1]), output: stdout };
}

describe("embedded PostgreSQL from a private folder", () => {
  it.runIf(isRoot)(
    "as root, from a checkout in a mktemp -d folder: starts, and keeps its data across restarts",
    async () => {
      const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cm-fresh-"));
      temporary.push(tmp);
      expect((await fs.stat(tmp)).mode & 0o777).toBe(0o700);
      const checkout = path.join(tmp, "change-management");
      await fs.mkdir(checkout);
      await fs.cp("db", path.join(checkout, "db"), { recursive: true });
      await fs.copyFile("package.json", path.join(checkout, "package.json"));
      await fs.copyFile("tsconfig.json", path.join(checkout, "tsconfig.json"));
      await run("cp", ["-al", "node_modules", path.join(checkout, "node_modules")]);
      // Where the copies and the relocated cluster go; reachable by `postgres` like /var/lib.
      const home = await fs.mkdtemp(path.join(os.tmpdir(), "cm-pg-home-"));
      temporary.push(home);
      await fs.chmod(home, 0o755);
      const env = { DATA_DIR: ".data", EMBEDDED_PG_HOME: home };

      const first = await start(checkout, env);
      expect(first.visits, first.output).toBe(1);
      expect(first.output).toContain("copying the binaries");
      expect(first.output).toContain("the database lives in");
      const second = await start(checkout, env);
      expect(second.visits, second.output).toBe(2);
      expect(second.output).not.toContain("copying the binaries");
    },
    120_000,
  );

  it("as an ordinary user, from a 0700 folder of theirs: starts, and keeps its data across restarts", async () => {
    const user = isRoot ? { uid: 65534, gid: 65534 } : undefined; // nobody, when the tests run as root
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cm-user-"));
    temporary.push(tmp);
    if (user) await fs.chown(tmp, user.uid, user.gid);
    const env = { DATA_DIR: path.join(tmp, ".data"), HOME: tmp };
    const first = await start(process.cwd(), env, user);
    expect(first.visits, first.output).toBe(1);
    const second = await start(process.cwd(), env, user);
    expect(second.visits, second.output).toBe(2);
  }, 120_000);
});
