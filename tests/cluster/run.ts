/**
 * `npm run test:cluster` (the last part of `npm test`): three instances of the production server
 * behind HAProxy (Debian's package) on one database, under load from clients driving MOC pipeline
 * steps, chat messages and uploads. One instance is killed with SIGKILL mid-load and started again.
 * Then (docs/architecture.md, "Operations"):
 *
 * - no step is half-applied: every MOC's status is the one its last audit entry moved it to, every
 *   step a client saw succeed is in the record, and the audit chains verify;
 * - no email is lost or doubled: every message queued is delivered, exactly once, to the mail API
 *   (a local fake of Resend that keeps Resend's idempotency promise);
 * - no upload is corrupted: every stored file's bytes hash to its recorded SHA-256, and every upload
 *   a client saw succeed downloads back, through the load balancer, byte for byte;
 * - the clients' failed requests are only those in flight on the killed instance (HAProxy's log
 *   names the server that had each one);
 * - request ids: the load balancer's id is answered and found in the instance's log lines;
 *   /metrics answers on the instance's own port and is refused through the proxy;
 * - a backup taken under the load checks out whole.
 *
 * Runs on DATABASE_URL's server, or an embedded PostgreSQL under .data/cluster. Needs `haproxy`
 * (tests/cluster/setup.sh installs it) and a production build (made when missing).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { createAppDatabase, dropDatabase, originalProcess, startTestServer } from "../helpers/databases";
import { startFakeResend } from "../helpers/fake-resend";

const root = fileURLToPath(new URL("../../", import.meta.url));
const SESSION_SECRET = "cluster-session-secret-0123456789-abcdef";
const AUDIT_KEY = "cluster-audit-key-0123456789-0123456789-abcdef";
const LOAD_SECONDS = Number(process.env.CLUSTER_LOAD_SECONDS ?? 16);
const CLIENTS = { pipeline: 4, chat: 2, upload: 2 };
const log = (message: string) => console.log(`[cluster] ${message}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const problems: string[] = [];
const check = (ok: boolean, message: string) => {
  log(`${ok ? "ok  " : "FAIL"} ${message}`);
  if (!ok) problems.push(message);
};

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

function haproxyConfig(lbPort: number, ports: number[]): string {
  return `global
  log stdout format raw local0
  maxconn 512
defaults
  mode http
  log global
  timeout connect 1s
  timeout check 5s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch 1
  option forwardfor
  # A new server connection per request: a request never goes out on a connection to a server
  # that died, it fails to connect and is sent to another (retries, redispatch); and a client's
  # connection is not tied to the server that answered its last request.
  option http-server-close
  http-reuse never
  # Which server had each request, how it ended (%tsc), and its id (captured below).
  log-format "haproxy id=%[capture.req.hdr(0)] server=%s status=%ST term=%tsc"
frontend web
  bind 127.0.0.1:${lbPort}
  http-request set-header X-Request-Id %[uuid()] unless { req.hdr(x-request-id) -m found }
  http-request capture req.hdr(X-Request-Id) len 64
  default_backend app
backend app
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # A killed server is out within about a second; a busy one is not taken for dead.
  default-server inter 500ms fall 3 rise 2
${ports.map((port, i) => `  server s${i + 1} 127.0.0.1:${port} check`).join("\n")}
`;
}

type Proc = { child: ChildProcess; output: () => string; exited: Promise<void> };

function spawnLogged(command: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once("exit", () => resolve())) };
}

async function waitFor(url: string, proc: Proc, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${what} exited:\n${proc.output().slice(-3000)}`);
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url}:\n${proc.output().slice(-3000)}`);
    await sleep(200);
  }
}

/** One client request through the load balancer, with its own id; failures are kept, not thrown. */
type Outcome = { id: string; what: string; status: number | null; error?: string; started: number; ended: number };
const outcomes: Outcome[] = [];

async function main() {
  // The production build, made unless build/ was made from these sources (scripts/build-once.ts).
  const build = spawnLogged(
    process.execPath,
    ["--import", "tsx", path.join(root, "scripts/build-once.ts")],
    process.env,
  );
  await build.exited;
  if (build.child.exitCode !== 0) throw new Error(`the build failed:\n${build.output()}`);
  const work = mkdtempSync(path.join(tmpdir(), "cm-cluster-"));
  const { serverUrl, embedded } = await startTestServer(path.join(root, ".data/cluster"));
  const database = `cm_cluster_${randomBytes(4).toString("hex")}`;
  // Owned by the app's role, which the instances connect as: the app refuses a superuser in production
  // (docs/decisions/025-keyed-audit-chain.md).
  const databaseUrl = await createAppDatabase(serverUrl, database);
  const fake = await startFakeResend({ requestsPerSecond: 0 });
  const procs: Proc[] = [];
  let haproxy: Proc | undefined;
  try {
    // The app's own modules, for seeding and checking, on the cluster's database.
    process.env.DATABASE_URL = databaseUrl;
    process.env.SESSION_SECRET = SESSION_SECRET;
    // One audit key for every instance and for the checks here, as in a deployment.
    process.env.AUDIT_KEY = AUDIT_KEY;
    process.env.LOG_LEVEL = "silent";
    const { migrateDatabase } = await import("../../db/migrate");
    await migrateDatabase(databaseUrl);
    // Its journeys follow the original spec's process (tests/helpers/databases.ts `originalProcess`).
    await originalProcess(databaseUrl);
    const { makeUser, tokenFor } = await import("../helpers/factories");
    const { sessionCookieHeader } = await import("../helpers/request");
    const { CAST, newMocBody, stepBody, STEP_PATH } = await import("../helpers/moc");

    const ports = [await freePort(), await freePort(), await freePort()];
    const lbPort = await freePort();
    const lb = `http://127.0.0.1:${lbPort}`;
    const instanceEnv = (port: number): NodeJS.ProcessEnv => ({
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: lb,
      SESSION_SECRET,
      TRUST_PROXY: "loopback",
      LOG_LEVEL: "info",
      RESEND_API_KEY: "re_cluster_test",
      RESEND_BASE_URL: fake.url,
      RESEND_MAX_REQUESTS_PER_SECOND: "50",
      // A job whose instance died is retried after this (and found by the monitor this often).
      EMAIL_JOB_TIMEOUT_SECONDS: "8",
      JOBS_MAINTENANCE_INTERVAL_SECONDS: "2",
      JOBS_POLLING_INTERVAL_SECONDS: "0.5",
      DATA_DIR: path.join(work, `data-${port}`),
      DATABASE_POOL_SIZE: "8",
    });
    const startInstance = (i: number) => {
      const proc = spawnLogged(process.execPath, ["--import", "tsx", "app/server/main.ts"], instanceEnv(ports[i]!));
      procs[i] = proc;
      return waitFor(`http://127.0.0.1:${ports[i]}/readyz`, proc, `instance ${i + 1}`);
    };
    log("starting three instances");
    await startInstance(0); // the first migrates and creates pg-boss's queues; the others find them
    await Promise.all([startInstance(1), startInstance(2)]);

    const config = path.join(work, "haproxy.cfg");
    writeFileSync(config, haproxyConfig(lbPort, ports));
    haproxy = spawnLogged("haproxy", ["-db", "-f", config], process.env);
    await waitFor(`${lb}/readyz`, haproxy, "haproxy");
    // Every server up in HAProxy's eyes before the load starts.
    await sleep(1500);

    // People: one cast per pipeline client, and the originators' sessions as cookies for uploads.
    const casts = await Promise.all(
      Array.from({ length: CLIENTS.pipeline + CLIENTS.chat + CLIENTS.upload }, async (_, i) => {
        const people = await Promise.all(
          CAST.map(([, name, department]) => makeUser({ name: `${name} ${i}`, department })),
        );
        const cast = Object.fromEntries(CAST.map(([role], k) => [role, people[k]!])) as Record<
          (typeof CAST)[number][0],
          (typeof people)[number]
        >;
        const tokens = Object.fromEntries(
          await Promise.all(Object.entries(cast).map(async ([role, user]) => [role, await tokenFor(user)] as const)),
        ) as Record<keyof typeof cast, string>;
        return { cast, tokens, cookie: await sessionCookieHeader(tokens.originator) };
      }),
    );

    const request = async (
      what: string,
      url: string,
      init: RequestInit,
    ): Promise<{ status: number | null; body: string; id: string }> => {
      const id = `cl-${randomUUID()}`;
      const started = Date.now();
      try {
        const res = await fetch(`${lb}${url}`, {
          ...init,
          redirect: "manual",
          headers: { ...(init.headers as Record<string, string>), "X-Request-Id": id },
        });
        const body = await res.text();
        outcomes.push({ id, what, status: res.status, started, ended: Date.now() });
        return { status: res.status, body, id };
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        outcomes.push({
          id,
          what,
          status: null,
          error: `${String(error)} (${String(cause)})`,
          started,
          ended: Date.now(),
        });
        return { status: null, body: "", id };
      }
    };
    const api = (what: string, url: string, token: string, body: unknown) =>
      request(what, url, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });

    let loading = true;
    const stepsDone: { mocId: string; step: string }[] = [];
    const mocIds = new Set<string>();
    const stepRequestIds: string[] = [];
    const pipelineClient = async (c: (typeof casts)[number]) => {
      const order = ["implementer", "hseq", "approver", "implementation", "verifier"] as const;
      const actor = {
        implementer: "implementer",
        hseq: "hseq",
        approver: "approver",
        implementation: "implementer",
        verifier: "hseq",
      } as const;
      while (loading) {
        const created = await api("newmoc", "/api/newmoc", c.tokens.originator, newMocBody(c.cast.implementer));
        if (created.status !== 200) continue;
        let moc = JSON.parse(created.body).data as { _id: string };
        mocIds.add(moc._id);
        for (const step of order) {
          if (!loading) break;
          const body = stepBody(step, moc, c.cast);
          const res = await api(`step ${step}`, STEP_PATH[step], c.tokens[actor[step]], body);
          // A step whose request was cut off may have been applied: the record says which.
          if (res.status === null || res.status >= 500) break;
          if (res.status !== 200) {
            problems.push(`step ${step} answered ${res.status}: ${res.body.slice(0, 200)}`);
            break;
          }
          stepRequestIds.push(res.id);
          stepsDone.push({ mocId: moc._id, step });
          moc = JSON.parse(res.body).data;
        }
      }
    };
    /** A MOC for a client to work on; a creation cut off by the kill is tried again. */
    const newMoc = async (c: (typeof casts)[number]): Promise<{ _id: string; chat: string }> => {
      for (;;) {
        const created = await api("newmoc", "/api/newmoc", c.tokens.originator, newMocBody(c.cast.implementer));
        if (created.status === 200) return JSON.parse(created.body).data;
        if (created.status !== null && created.status < 500) throw new Error(`newmoc answered ${created.status}`);
      }
    };
    const chatSent: { text: string; ok: boolean }[] = [];
    const chatClient = async (c: (typeof casts)[number]) => {
      const moc = await newMoc(c);
      while (loading) {
        const text = `message ${randomUUID()}`;
        const res = await api("chat", "/api/chat", c.tokens.originator, {
          chat_id: moc.chat,
          message: { sender: c.cast.originator._id, message: text },
        });
        chatSent.push({ text, ok: res.status === 200 });
      }
    };
    const uploads: { mocId: string; sha256: string; bytes: Buffer; ok: boolean; cookie: string }[] = [];
    const uploadClient = async (c: (typeof casts)[number]) => {
      const moc = await newMoc(c);
      while (loading) {
        const bytes = Buffer.concat([
          Buffer.from("%PDF-1.4\n"),
          randomBytes(200_000 + Math.floor(Math.random() * 400_000)),
        ]);
        const body = Buffer.concat([
          Buffer.from(
            `--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="drawing.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
          ),
          bytes,
          Buffer.from("\r\n--BOUNDARY--\r\n"),
        ]);
        const res = await request("upload", `/mocs/${moc._id}/attachments`, {
          method: "POST",
          headers: { "Content-Type": "multipart/form-data; boundary=BOUNDARY", Cookie: c.cookie },
          body,
        });
        if (res.status !== null && res.status < 500 && res.status !== 302)
          problems.push(`upload answered ${res.status}`);
        uploads.push({
          mocId: moc._id,
          sha256: createHash("sha256").update(bytes).digest("hex"),
          bytes,
          ok: res.status === 302,
          cookie: c.cookie,
        });
      }
    };

    log(
      `load for ${LOAD_SECONDS} s: ${CLIENTS.pipeline} pipeline, ${CLIENTS.chat} chat, ${CLIENTS.upload} upload clients`,
    );
    const clients = [
      ...casts.slice(0, CLIENTS.pipeline).map(pipelineClient),
      ...casts.slice(CLIENTS.pipeline, CLIENTS.pipeline + CLIENTS.chat).map(chatClient),
      ...casts.slice(CLIENTS.pipeline + CLIENTS.chat).map(uploadClient),
    ];
    await sleep((LOAD_SECONDS * 1000) / 3);

    // A backup under the load: one snapshot of every table, whatever is being written.
    const { writeBackup, verifyBackupFile } = await import("../../db/backup");
    const { auditKeyId } = await import("../../app/models/audit/audit-chain.server");
    const backupKey = { id: auditKeyId(AUDIT_KEY), secret: AUDIT_KEY };
    const backupFile = path.join(work, "under-load.cmbackup");
    const backupDone = writeBackup(databaseUrl, backupFile, backupKey);

    log("SIGKILL instance 2");
    const killedAt = Date.now();
    procs[1]!.child.kill("SIGKILL");
    await procs[1]!.exited;
    const diedAt = Date.now();
    await sleep(2000);
    log("restarting instance 2");
    await startInstance(1);
    const restartedAt = Date.now();
    await sleep(Math.max(0, LOAD_SECONDS * 1000 - (Date.now() - killedAt) - (LOAD_SECONDS * 1000) / 3));
    loading = false;
    await Promise.all(clients);
    const backup = await backupDone;
    log(
      `load done: ${outcomes.length} requests; instance 2 was down for ${((restartedAt - killedAt) / 1000).toFixed(1)} s`,
    );

    // Every queued email goes out (jobs the killed instance held expire and are retried).
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    const deadline = Date.now() + 90_000;
    for (;;) {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from email_messages where status <> 'sent'`;
      if (row!.n === 0) break;
      if (Date.now() > deadline) {
        check(false, `${row!.n} emails still not sent after 90 s`);
        break;
      }
      await sleep(500);
    }

    // --- Steps: none half-applied --------------------------------------------------------------
    const mocs = await sql<{ id: string; status: string; last: string | null; logs: number; emails: number }[]>`
      select m.id, m.status::text as status,
        (select l.to_status::text from moc_logs l where l.moc_id = m.id and l.to_status is not null
          order by l.seq desc limit 1) as last,
        (select count(*)::int from moc_logs l where l.moc_id = m.id) as logs,
        (select count(*)::int from email_messages e where e.record_id = m.id) as emails
      from mocs m`;
    const drift = mocs.filter((m) => m.last !== null && m.last !== m.status);
    check(
      drift.length === 0,
      `every MOC's status is the one its last audit entry set (${mocs.length} MOCs, ${drift.length} differ)`,
    );
    const byId = new Map(mocs.map((m) => [m.id, m]));
    const missing = stepsDone.filter((s) => !byId.has(s.mocId));
    check(missing.length === 0 && stepsDone.length > 0, `${stepsDone.length} steps answered 200, all in the records`);
    await import("../../app/models/kinds/record-kinds.server");
    const { verifyAuditTrail } = await import("../../app/models/audit/audit.server");
    const audit = await verifyAuditTrail();
    check(audit.broken.length === 0, `audit chains verify (${audit.entries} entries in ${audit.chains} chains)`);

    // --- Emails: none lost, none doubled -------------------------------------------------------
    const messages = await sql<{ id: string }[]>`select id from email_messages`;
    const delivered = new Map<string, number>();
    for (const d of fake.deliveries) if (d.messageId) delivered.set(d.messageId, (delivered.get(d.messageId) ?? 0) + 1);
    const lost = messages.filter((m) => !delivered.has(m.id));
    const doubled = [...delivered.values()].filter((n) => n > 1);
    const strangers = [...delivered.keys()].filter((id) => !messages.some((m) => m.id === id));
    check(
      messages.length > 0 && lost.length === 0 && doubled.length === 0 && strangers.length === 0,
      `${messages.length} emails queued, ${delivered.size} delivered once each (${lost.length} lost, ${doubled.length} doubled; ${fake.requests.length} API requests)`,
    );

    // --- Uploads: none corrupted -----------------------------------------------------------------
    const stored = await sql<
      { id: string; moc_id: string; sha256: string; actual: string; size: number; bytes: number }[]
    >`
      select a.id, a.moc_id, a.sha256, a.size::int as size,
        encode(sha256(coalesce((select string_agg(c.data, ''::bytea order by c.seq) from attachment_chunks c where c.attachment_id = a.id), ''::bytea)), 'hex') as actual,
        coalesce((select sum(length(c.data))::int from attachment_chunks c where c.attachment_id = a.id), 0) as bytes
      from attachments a`;
    const corrupt = stored.filter((a) => a.actual !== a.sha256 || a.bytes !== a.size);
    check(corrupt.length === 0, `${stored.length} stored files, every one whole (${corrupt.length} corrupt)`);
    const okUploads = uploads.filter((u) => u.ok);
    let roundTrips = 0;
    for (const upload of okUploads) {
      const row = stored.find((a) => a.sha256 === upload.sha256 && a.moc_id === upload.mocId);
      if (!row) {
        check(false, `an upload answered 302 is not stored (${upload.sha256})`);
        continue;
      }
      const res = await fetch(`${lb}/attachments/${row.id}`, { headers: { Cookie: upload.cookie } });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status === 200 && Buffer.compare(bytes, upload.bytes) === 0) roundTrips++;
    }
    check(
      okUploads.length > 0 && roundTrips === okUploads.length,
      `${okUploads.length} uploads answered 302; ${roundTrips} download back byte for byte through the load balancer`,
    );

    // --- Chat: each message a client saw accepted is there once ---------------------------------
    const texts = await sql<{ message: string; n: number }[]>`
      select message, count(*)::int as n from chat_messages group by message`;
    const counts = new Map(texts.map((t) => [t.message, t.n]));
    const chatOk = chatSent.filter((m) => m.ok);
    check(
      chatOk.length > 0 && chatOk.every((m) => counts.get(m.text) === 1) && [...counts.values()].every((n) => n === 1),
      `${chatOk.length} chat messages accepted, each stored once`,
    );

    // --- Failed requests: only those in flight on the killed instance ----------------------------
    const failed = outcomes.filter((o) => o.status === null || o.status >= 500);
    const lbLog = haproxy.output();
    if (process.env.CLUSTER_DEBUG) console.log(lbLog.split("\n").slice(0, 5).join("\n"));
    const serverOf = (id: string) => new RegExp(`haproxy id=${id} server=(\\S+)`).exec(lbLog)?.[1];
    // HAProxy logs which server had each request; a request it had not yet read when the killed
    // server's connection went down can end without a line ("other side closed"): those must at
    // least have been in flight at the kill, as every failed one must.
    const elsewhere = failed.filter((o) => serverOf(o.id) !== undefined && serverOf(o.id) !== "s2");
    const unlogged = failed.filter((o) => serverOf(o.id) === undefined);
    const outOfFlight = failed.filter((o) => !(o.started <= diedAt && o.ended >= killedAt));
    if (process.env.CLUSTER_DEBUG) {
      for (const o of failed)
        console.log(
          o,
          lbLog.split("\n").filter((l) => l.includes(o.id)),
          { killedAt, diedAt },
        );
    }
    check(
      elsewhere.length === 0 && outOfFlight.length === 0 && failed.length <= clients.length,
      `${failed.length} of ${outcomes.length} client requests failed, all in flight at the kill, ` +
        `${failed.length - unlogged.length} logged by HAProxy on the killed instance s2 and ${unlogged.length} cut off before HAProxy logged them` +
        (elsewhere.length || outOfFlight.length
          ? ` (not: ${[...elsewhere, ...outOfFlight].map((o) => `${o.what} ${o.status ?? o.error} via ${serverOf(o.id)}`).join(", ")})`
          : ""),
    );

    // --- Request ids and metrics ----------------------------------------------------------------
    const someId = stepRequestIds.at(-1)!;
    const logged = procs.some((p) => p.output().includes(`"requestId":"${someId}"`));
    const jobLogged = procs.some((p) =>
      p
        .output()
        .split("\n")
        .some(
          (line) =>
            line.includes('"msg":"email batch delivered"') &&
            stepRequestIds.some((id) => line.includes(`"requestId":"${id}"`)),
        ),
    );
    check(
      logged && jobLogged,
      "a step's request id is in its instance's log lines and in the log of the email job it queued",
    );
    const direct = await fetch(`http://127.0.0.1:${ports[0]}/metrics`);
    const directText = await direct.text();
    const proxied = await fetch(`${lb}/metrics`);
    check(
      direct.status === 200 &&
        /http_requests_total\{[^}]*route="\/api\/submit\/hseq"/.test(directText) &&
        proxied.status === 403,
      "/metrics answers on the instance's port (HTTP counts by route pattern) and is refused through the load balancer",
    );

    // --- The backup taken under load --------------------------------------------------------------
    const verified = await verifyBackupFile(backupFile, { keys: [backupKey] });
    check(
      verified.sha256 === backup.sha256,
      `a backup taken under load checks out whole (${backup.rows} rows, ${(backup.ms / 1000).toFixed(1)} s)`,
    );

    await sql.end();
    const { closeDb } = await import("../../db/client");
    await closeDb();
  } finally {
    for (const proc of procs) if (proc && proc.child.exitCode === null) proc.child.kill("SIGTERM");
    await Promise.all(procs.map((p) => p?.exited));
    if (haproxy && haproxy.child.exitCode === null) {
      haproxy.child.kill("SIGTERM");
      await haproxy.exited;
    }
    await fake.close();
    await dropDatabase(serverUrl, database).catch(() => {});
    await embedded?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  if (problems.length) {
    for (const problem of problems.slice(0, 10)) console.error(`[cluster] ${problem}`);
    console.error(`[cluster] ${problems.length} check(s) failed`);
    process.exit(1);
  }
  log("every check holds");
}

main().catch((error: unknown) => {
  console.error(`[cluster] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
