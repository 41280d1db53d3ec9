/**
 * `npm run bench`: seed 10,000 MOCs with their forms, users and logs into a fresh database, start
 * the production server on it, and measure (autocannon) each endpoint beside the framework floor:
 * a Remix resource route that returns a constant 2 KB JSON, itself set beside bare references run
 * in the same minutes (node:http, Express, a bare Remix route: tests/bench/bare.ts); every row is
 * given as a share of the floor and of bare Remix. Prints one table; exits non-zero only
 * when something crashes, never for a missed target (those print MISSED).
 *
 * BENCH_SECONDS (default 10) per scenario, BENCH_PORT (3200), BENCH_SKIP_BUILD=1 to reuse build/,
 * BENCH_KEEP_DB=1 to keep the cm_bench database afterwards, BENCH_DATABASE to name another one.
 * `npm run bench -- --only email` runs only the floor, the pipeline step and the email rows
 * (tests/bench/email.ts); `--only step` only the floor and the pipeline step; `--only core` every row but the email ones; `--only csv` only the
 * CSV export of the 10,000 MOCs with the server's memory (tests/bench/csv.ts); `--only sea` only the
 * pages over an emulated satellite link (tests/bench/sea.ts); `--only my-actions` only the dashboard of a
 * person owning 200 plan items beside today's (tests/bench/my-actions.ts); `--only search` only GET /api/search
 * over 10,000 MOCs, 2,000 PCRs and 5,000 archive records (tests/bench/search.ts).
 */
import "../../app/models/kinds/record-kinds.server";
import autocannon from "autocannon";
import { drizzle } from "drizzle-orm/postgres-js";
import os from "node:os";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { migrateDatabase } from "../../db/migrate";
import { originalProcess } from "../helpers/databases";
import * as schema from "../../db/schema";
import { mocListScope } from "../../app/models/authz/authz.server";
import { buildMocListJson } from "../../app/models/moc/moc-query.server";
import { computeInsights } from "../../app/models/insights/insights.server";
import { BENCH_PASSWORD, hseqPool, insertInsightExtras, insertMocs, insertUsers } from "./data";
import { csvBench } from "./csv";
import { seaBench, seaTable } from "./sea";
import { emailBench } from "./email";
import { myActionsBench, OWNED_ITEMS } from "./my-actions";
import { insertSearchRecords, searchBench } from "./search";
import { build, login, openDatabase, signIn, startServer, type BenchDatabase, type BenchServer } from "./server";
import { BARE_KINDS, measureBare, type BareKind } from "./bare";
import { heapMiB, peakMiB, resetPeak, rssMiB, sampling } from "./memory";

const MOCS = 10_000;
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
/** `npm run bench -- --only step`: the floor and the pipeline step only. */
const ONLY_STEP = ONLY === "step";
/** `npm run bench -- --only core`: every row but the email ones (which seed 100,000 MOCs, about 14 minutes). */
const ONLY_CORE = ONLY === "core";
/** `npm run bench -- --only email`: the floor, the pipeline step and the email rows only. */
const ONLY_EMAIL = ONLY === "email" || ONLY_STEP;
/** `npm run bench -- --only csv`: the CSV export row only. */
const ONLY_CSV = ONLY === "csv";
/** `npm run bench -- --only sea`: pages over an emulated satellite link, and the list's encodings (tests/bench/sea.ts). */
const ONLY_SEA = ONLY === "sea" || ONLY === "sea:ship";
/** `npm run bench -- --only sea:ship`: of the sea rows, only "a ship's day replayed" (drafts sent when the link returns). */
const ONLY_SHIP = ONLY === "sea:ship";
/** `npm run bench -- --only my-actions`: the dashboard with 200 of My actions beside today's (tests/bench/my-actions.ts). */
const ONLY_MY_ACTIONS = ONLY === "my-actions";
/** `npm run bench -- --only search`: GET /api/search, p50 and p95 (tests/bench/search.ts). */
const ONLY_SEARCH = ONLY === "search";
/** The search bench's target (docs/decisions/039-search.md). */
const SEARCH_P95_TARGET_MS = 100;
/** MOCs waiting at c, added after the list scenarios, that the pipeline step consumes one by one. */
const HSEQ_POOL = 15_000;
/**
 * The pipeline step runs in rounds, each right after a floor run of its own, and its row reports
 * the round with the median ratio: this VM's speed drifts by a third between runs of the same code
 * (docs/performance.md), and a ratio of adjacent runs is steadier than either number.
 */
const STEP_ROUNDS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 3200);
const CONNECTIONS = 50;
/**
 * The admin list is tens of MB per response and takes seconds: a few clients for a fixed number
 * of requests, so it measures work rather than a queue that never drains within the duration.
 */
const ADMIN_CONNECTIONS = 4;
const ADMIN_REQUESTS = 8;
const SEQUENTIAL_RUNS = 5;
/** Sequential requests per page in the pages scenario (its p99 column is their maximum). */
const PAGE_RUNS = 20;

type Row = {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  /** The floor's req/s measured just before this scenario, on the same server. */
  floorRps?: number;
  /** This row is a bare reference (no share of the bare Remix route of its own). */
  bare?: true;
  target: string;
  pass?: boolean;
  note?: string;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
/** Rates below 10 keep two decimals (the admin list does a fraction of a request a second). */
const rate = (n: number) => String(n < 10 ? round(n, 2) : round(n));
const log = (message: string) => console.log(`[bench] ${message}`);

async function cannon(
  base: string,
  options: { title: string; connections: number; seconds?: number; amount?: number; requests: autocannon.Request[] },
): Promise<autocannon.Result> {
  const result = await autocannon({
    url: base,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? SECONDS }),
    timeout: 120,
    title: options.title,
    requests: options.requests,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    log(`${options.title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result;
}

/** A short run first (JIT, pools, caches), then the measured one. */
async function measure(
  base: string,
  title: string,
  connections: number,
  requests: () => autocannon.Request[],
): Promise<autocannon.Result> {
  await cannon(base, {
    title: `${title} (warm-up)`,
    connections: Math.min(10, connections),
    seconds: 2,
    requests: requests(),
  });
  const result = await cannon(base, { title, connections, seconds: SECONDS, requests: requests() });
  log(
    `${title}: ${round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms` +
      ` (${result["2xx"]} ok)`,
  );
  return result;
}

const rotating = (paths: string[], headers: Record<string, string>): autocannon.Request[] => {
  let next = 0;
  return [{ method: "GET", headers, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }];
};

async function timeGet(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return { ms, bytes: Buffer.byteLength(body) };
}

/** The bare Remix resource route's req/s in this run (tests/bench/bare.ts), once measured. */
let bareRemixRps: number | undefined;
/** The issue 43 target: the app's floor at least this share of bare Remix. */
const FLOOR_OF_BARE_REMIX = 0.6;
/** The issue 43 target for GET /api/newmoc and /api/singlemoc: this share of the app's floor. */
const READ_SHARE_OF_FLOOR = 0.8;

function printTable(rows: Row[]): string {
  const header = [
    "scenario",
    "conns",
    "req/s",
    "p50 ms",
    "p99 ms",
    "floor req/s just before",
    "% of floor",
    "% of bare Remix",
    "target",
    "result",
  ];
  const lines = rows.map((r) => [
    r.scenario,
    String(r.connections),
    rate(r.rps),
    String(round(r.p50)),
    String(round(r.p99)),
    r.floorRps === undefined ? "" : rate(r.floorRps),
    r.floorRps === undefined ? "" : `${round((100 * r.rps) / r.floorRps)}%`,
    bareRemixRps && !r.bare ? `${round((100 * r.rps) / bareRemixRps)}%` : "",
    r.target,
    r.pass === undefined ? "" : r.pass ? "pass" : "MISSED",
  ]);
  const table = [header, header.map(() => "---"), ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
  console.log(`\n${table}\n`);
  return table;
}

async function main(): Promise<void> {
  const started = Date.now();
  let database: BenchDatabase | undefined;
  let server: BenchServer | undefined;
  let client: postgres.Sql | undefined;
  const stopAll = async () => {
    await server?.stop().catch((error: unknown) => console.error(`stopping the server: ${String(error)}`));
    await client?.end({ timeout: 5 }).catch(() => {});
    await database?.close().catch((error: unknown) => console.error(`closing the database: ${String(error)}`));
  };
  process.once("SIGINT", () => {
    void stopAll().finally(() => process.exit(130));
  });

  const cores = os.cpus().length;
  const load = () => os.loadavg()[0]!.toFixed(1);
  log(`load average ${load()} on ${cores} cores`);
  if (os.loadavg()[0]! > cores) {
    log(`the machine is busy (load ${load()} > ${cores} cores): every number below will be lower than on an idle one`);
  }

  try {
    if (process.env.BENCH_SKIP_BUILD !== "1") {
      log("building (unless build/ was made from these sources)");
      await build();
    }
    database = await openDatabase();
    log(`database: ${database.where}`);
    await migrateDatabase(database.url);
    // Its journeys follow the original spec's process (tests/helpers/databases.ts `originalProcess`).
    await originalProcess(database.url);
    client = postgres(database.url, { max: 4, onnotice: () => {} });
    const [{ version }] = (await client`select version()`) as unknown as [{ version: string }];

    let t = Date.now();
    const people = await insertUsers(client);
    if (!ONLY_EMAIL) {
      await insertMocs(client, { from: 1, to: MOCS, mode: "mix" });
      await insertInsightExtras(client, MOCS / 10);
    }
    if (ONLY_SEARCH) await insertSearchRecords(client);
    const [counts] = await client<{ mocs: number; forms: number; logs: number; moc_users: number; mine: number }[]>`
      select (select count(*)::int from mocs) as mocs, (select count(*)::int from moc_forms) as forms,
             (select count(*)::int from moc_logs) as logs, (select count(*)::int from moc_users) as moc_users,
             (select count(*)::int from moc_users mu join users u on u.id = mu.user_id
               where u.email = ${people.standard}) as mine`;
    log(
      `seeded ${counts!.mocs} MOCs, ${counts!.forms} forms, ${counts!.logs} log entries, ${counts!.moc_users} all_users rows` +
        ` (the standard user is in ${counts!.mine}) in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );

    server = await startServer({ databaseUrl: database.url, port: PORT });
    const base = server.base;
    log(`server up at ${base}`);
    // Resident memory at rest: after start, before any scenario (issue 43: what every process pays).
    await new Promise((r) => setTimeout(r, 2_000));
    const restingMiB = await rssMiB(server.pid);
    const restingHeap = await heapMiB(base);
    const adminToken = await login(base, people.admin, BENCH_PASSWORD);
    const standardToken = await login(base, people.standard, BENCH_PASSWORD);
    const hseqTokens = await Promise.all(people.hseq.map((email) => login(base, email, BENCH_PASSWORD)));
    const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

    const rows: Row[] = [];

    if (ONLY_SEA) {
      const sea = await seaBench(
        base,
        client,
        { admin: people.admin, password: BENCH_PASSWORD },
        { shipOnly: ONLY_SHIP },
      );
      console.log(`\n${seaTable(sea)}\n`);
      return;
    }

    if (ONLY_MY_ACTIONS) {
      const person = { email: people.standard, cookie: (await signIn(base, people.standard, BENCH_PASSWORD)).cookie };
      const result = await myActionsBench(base, client, person);
      log(
        `My actions: ${result.items} items on ${result.mocs} MOCs; the statement alone ${round(result.sqlMs, 2)} ms ` +
          `(median), reading the ${result.plan}`,
      );
      for (const row of result.rows) {
        rows.push({
          scenario: `${row.label}, ${round(row.kb, 0)} KB, sequential`,
          connections: 1,
          rps: 1000 / row.p50,
          p50: round(row.p50),
          p99: round(row.max),
          target: `report (${OWNED_ITEMS} items)`,
        });
      }
      printTable(rows);
      return;
    }

    if (ONLY_SEARCH) {
      const [sizes] = await client<{ pcrs: number; archive: number; entries: number }[]>`
        select (select count(*)::int from pcrs) as pcrs,
               (select count(*)::int from legacy_mocs) + (select count(*)::int from legacy_pcrs) as archive,
               (select count(*)::int from search_entries) as entries`;
      log(
        `search over ${counts!.mocs} MOCs, ${sizes!.pcrs} PCRs, ${sizes!.archive} archive records (${sizes!.entries} entries)`,
      );
      const results = await searchBench(base, client, [
        { label: "admin", token: adminToken },
        { label: "standard user", token: standardToken },
      ]);
      const lines = results.map((r) => {
        const overall = r.scenario.includes(": all ");
        const verdict = overall ? (r.p95 < SEARCH_P95_TARGET_MS ? "pass" : "MISSED") : "";
        return `| ${r.scenario} | ${r.runs} | ${round(r.p50)} | ${round(r.p95)} | ${overall ? `p95 < ${SEARCH_P95_TARGET_MS} ms` : "report"} | ${verdict} |`;
      });
      console.log(
        `\n| scenario (sequential) | requests | p50 ms | p95 ms | target | result |\n| --- | --- | --- | --- | --- | --- |\n${lines.join("\n")}\n`,
      );
      return;
    }

    if (ONLY_CSV) {
      const csv = await csvBench(base, adminToken, server.pid);
      rows.push({
        scenario:
          `GET /api/getAllMoc?format=csv, admin (${csv.rows} rows, ${round(csv.bytes / 2 ** 20, 1)} MB): ` +
          `server RSS ${round(csv.rssBeforeMiB, 0)} MiB before, peak ${round(csv.rssPeakMiB, 0)} MiB ` +
          `(the same list as JSON: peak ${round(csv.jsonPeakMiB, 0)} MiB)`,
        connections: 1,
        rps: 1000 / csv.ms,
        p50: Math.round(csv.ms),
        p99: Math.round(csv.ms),
        target: "reference (memory flat)",
      });
      printTable(rows);
      return;
    }

    // 1. The framework floor. Other processes on a shared machine make it drift, so it is measured
    //    right before each scenario it is compared with; its row shows the median of those runs.
    //    A first, unreported run warms the freshly started server up (JIT, pools, pg-boss start).
    const floorRequests = () => [{ method: "GET", path: "/api/floor" }];
    await cannon(base, { title: "warm-up", connections: CONNECTIONS, seconds: 5, requests: floorRequests() });
    // The bare references, in the same minutes (issue 43): what node:http, Express and Remix alone
    // cost here, each in its own process on a port of its own.
    const bareRows: Row[] = [];
    for (const kind of Object.keys(BARE_KINDS) as BareKind[]) {
      const bare = await measureBare(kind, { port: PORT + 1, connections: CONNECTIONS, seconds: SECONDS });
      log(`${BARE_KINDS[kind]}: ${round(bare.requests.average)} req/s, p50 ${bare.latency.p50} ms`);
      if (kind === "remix") bareRemixRps = bare.requests.average;
      bareRows.push({
        scenario: BARE_KINDS[kind],
        connections: CONNECTIONS,
        rps: bare.requests.average,
        p50: bare.latency.p50,
        p99: bare.latency.p99,
        target: "reference",
        bare: true,
      });
    }
    const floors: autocannon.Result[] = [];
    let floorRps = 0;
    const measureFloor = async () => {
      const floor = await cannon(base, { title: "floor", connections: CONNECTIONS, requests: floorRequests() });
      floors.push(floor);
      floorRps = floor.requests.average;
      log(`floor GET /api/floor: ${round(floorRps)} req/s, p50 ${floor.latency.p50} ms, p99 ${floor.latency.p99} ms`);
    };

    let adminSummary = "";
    /** Memory rows (issue 43), printed in a table of their own after the main one. */
    const memory: { measure: string; mib: number; target: string; pass?: boolean }[] = [];
    let readsPeak: number[] = [];
    memory.push({
      measure:
        `server RSS at rest, 2 s after start (V8 heap ${round(restingHeap.heapUsed, 0)} MiB used of ` +
        `${round(restingHeap.heapTotal, 0)} committed, ${round(restingHeap.external, 0)} MiB external)`,
      mib: restingMiB,
      target: "report",
    });
    if (!ONLY_EMAIL) {
      // 2. The standard user's list (~50 MOCs).
      const standardBytes = (await timeGet(`${base}/api/newmoc`, auth(standardToken))).bytes;
      await measureFloor();
      const mine = await measure(base, "GET /api/newmoc (standard user)", CONNECTIONS, () => [
        { method: "GET", path: "/api/newmoc", headers: auth(standardToken) },
      ]);
      rows.push({
        scenario: `GET /api/newmoc, standard user (${counts!.mine} MOCs, ${round(standardBytes / 1024, 0)} KB)`,
        connections: CONNECTIONS,
        rps: mine.requests.average,
        p50: mine.latency.p50,
        p99: mine.latency.p99,
        floorRps,
        target: `>= ${READ_SHARE_OF_FLOOR * 100}% of floor req/s`,
        pass: mine.requests.average >= READ_SHARE_OF_FLOOR * floorRps,
      });
      // The same floor with a body as large as that list: what moving the bytes alone costs here.
      const kb = Math.max(1, Math.round(standardBytes / 1024));
      const sized = await measure(base, `floor GET /api/floor?kb=${kb}`, CONNECTIONS, () => [
        { method: "GET", path: `/api/floor?kb=${kb}` },
      ]);
      rows.push({
        scenario: `floor with a ${kb} KB constant body (the list's size)`,
        connections: CONNECTIONS,
        rps: sized.requests.average,
        p50: sized.latency.p50,
        p99: sized.latency.p99,
        floorRps,
        target: "reference",
      });

      // 3. One fully populated MOC, rotating over every id.
      const ids = (await client<{ id: string }[]>`select id from mocs order by random()`).map((r) => r.id);
      const singleBytes = (await timeGet(`${base}/api/singlemoc?moc_id=${ids[0]}`, auth(adminToken))).bytes;
      await measureFloor();
      const single = await measure(base, "GET /api/singlemoc", CONNECTIONS, () =>
        rotating(
          ids.map((id) => `/api/singlemoc?moc_id=${id}`),
          auth(adminToken),
        ),
      );
      rows.push({
        scenario: `GET /api/singlemoc, ${ids.length} ids in turn (~${round(singleBytes / 1024, 1)} KB)`,
        connections: CONNECTIONS,
        rps: single.requests.average,
        p50: single.latency.p50,
        p99: single.latency.p99,
        floorRps,
        target: `>= ${READ_SHARE_OF_FLOOR * 100}% of floor req/s`,
        pass: single.requests.average >= READ_SHARE_OF_FLOOR * floorRps,
      });

      // 4. The admin list of all 10,000: sequential requests against the same SQL run directly.
      const db = drizzle(client, { schema });
      const where = mocListScope.newmoc({
        _id: "",
        role: "admin",
        department: "engineering",
        access: "full",
        position: null,
      });
      await buildMocListJson(where, db); // warm-up
      const sqlTimes: number[] = [];
      let sqlBytes = 0;
      for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
        const t0 = performance.now();
        sqlBytes = Buffer.byteLength(await buildMocListJson(where, db));
        sqlTimes.push(performance.now() - t0);
      }
      // Memory (issue 43): the peak of the read scenarios so far, then the admin list's growth.
      readsPeak = [await peakMiB(server.pid)];
      const adminRssBefore = await rssMiB(server.pid);
      const httpTimes: number[] = [];
      let adminBytes = 0;
      const adminSequential = await sampling(server.pid, async () => {
        await timeGet(`${base}/api/newmoc`, auth(adminToken)); // warm-up
        for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
          const { ms, bytes } = await timeGet(`${base}/api/newmoc`, auth(adminToken));
          httpTimes.push(ms);
          adminBytes = bytes;
        }
      });
      const sqlMs = median(sqlTimes);
      const httpMs = median(httpTimes);
      const ratio = httpMs / sqlMs;
      adminSummary =
        `Admin list vs one SQL query: ${round(httpMs)} ms / ${round(sqlMs)} ms = ${ratio.toFixed(2)}x (target <= 3x): ` +
        `${ratio <= 3 ? "pass" : "MISSED"}`;
      log(
        `admin list: ${(adminBytes / 1e6).toFixed(1)} MB; HTTP median ${round(httpMs)} ms, SQL median ${round(sqlMs)} ms` +
          ` (${(sqlBytes / 1e6).toFixed(1)} MB), ratio ${ratio.toFixed(2)}`,
      );
      const adminConcurrent = await sampling(server.pid, () =>
        cannon(base, {
          title: "GET /api/newmoc (admin)",
          connections: ADMIN_CONNECTIONS,
          amount: ADMIN_REQUESTS,
          requests: [{ method: "GET", path: "/api/newmoc", headers: auth(adminToken) }],
        }),
      );
      const adminLoad = adminConcurrent.result;
      // The pages and Insight below are read scenarios too: their peak apart from the admin list's.
      const peakReset = await resetPeak(server.pid);
      memory.push(
        {
          measure: `admin list (${(adminBytes / 1e6).toFixed(1)} MB) sent ${SEQUENTIAL_RUNS + 1} times one at a time: RSS growth while it is sent (${round(adminRssBefore, 0)} MiB before, peak ${round(adminSequential.peakMiB, 0)} MiB)`,
          mib: adminSequential.peakMiB - adminRssBefore,
          target: "< 100 MiB",
          pass: adminSequential.peakMiB - adminRssBefore < 100,
        },
        {
          measure: `admin list, ${ADMIN_REQUESTS} requests ${ADMIN_CONNECTIONS} at a time: RSS growth (peak ${round(adminConcurrent.peakMiB, 0)} MiB)`,
          mib: adminConcurrent.peakMiB - adminRssBefore,
          target: "report",
        },
      );
      log(
        `GET /api/newmoc (admin), ${ADMIN_REQUESTS} requests over ${ADMIN_CONNECTIONS} connections: ` +
          `p50 ${adminLoad.latency.p50} ms, p99 ${adminLoad.latency.p99} ms`,
      );
      rows.push({
        scenario: `GET /api/newmoc, admin (all ${MOCS} MOCs, ${(adminBytes / 1e6).toFixed(1)} MB), sequential`,
        connections: 1,
        rps: 1000 / httpMs,
        p50: httpMs,
        p99: Math.max(...httpTimes),
        target: "<= 3x the SQL alone",
        pass: ratio <= 3,
        note: `${ratio.toFixed(2)}x`,
      });
      rows.push({
        scenario: "one SQL query building the same JSON (postgres.js), sequential",
        connections: 1,
        rps: 1000 / sqlMs,
        p50: sqlMs,
        p99: Math.max(...sqlTimes),
        target: "reference",
      });
      rows.push({
        scenario: `GET /api/newmoc, admin, ${ADMIN_REQUESTS} requests ${ADMIN_CONNECTIONS} at a time`,
        connections: ADMIN_CONNECTIONS,
        rps: adminLoad["2xx"] / adminLoad.duration,
        p50: adminLoad.latency.p50,
        p99: adminLoad.latency.p99,
        target: "report",
      });

      // 5. The pages people open most, server time including rendering, one request at a time.
      // The session cookie as /login sets it (signed by Remix's cookie), one sign-in per person.
      const standardCookie = (await signIn(base, people.standard, BENCH_PASSWORD)).cookie;
      const adminCookie = (await signIn(base, people.admin, BENCH_PASSWORD)).cookie;
      const cookie = (value: string) => ({ Cookie: value });
      const pages: [string, string, string][] = [
        ["dashboard", "/", standardCookie],
        ["dashboard", "/", adminCookie],
        ["MOC list", "/mocs", standardCookie],
        ["MOC list", "/mocs", adminCookie],
        ["MOC list, waiting on me", "/mocs?scope=waiting", standardCookie],
        ["MOC list, searched", "/mocs?q=pump", adminCookie],
      ];
      for (const [label, path, token] of pages) {
        const who = token === adminCookie ? "admin" : "standard user";
        // A browser's first page carries the stylesheet and names it in a cookie; the pages after
        // link the cached file (app/utils/stylesheet.server.ts). The rows time a returning browser.
        const first = await fetch(`${base}${path}`, { headers: cookie(token) });
        const firstBytes = Buffer.byteLength(await first.text());
        const sheet = first.headers
          .getSetCookie()
          .find((c) => c.startsWith("sheet="))
          ?.split(";")[0];
        const returning = cookie(sheet ? `${token}; ${sheet}` : token);
        for (let i = 0; i < 3; i++) await timeGet(`${base}${path}`, returning); // warm-up
        const times: number[] = [];
        let bytes = 0;
        for (let i = 0; i < PAGE_RUNS; i++) {
          const got = await timeGet(`${base}${path}`, returning);
          times.push(got.ms);
          bytes = got.bytes;
        }
        const p50 = median(times);
        log(
          `page ${path} as ${who}: median ${round(p50)} ms (${round(bytes / 1024, 0)} KB; ${round(firstBytes / 1024, 0)} KB on a first visit)`,
        );
        // Issue 43: the two pages a standard user opens most, at most 20 ms and 25 KB.
        const targeted = who === "standard user" && (path === "/" || path === "/mocs");
        rows.push({
          scenario: `GET ${path} (${label} page, ${round(bytes / 1024, 0)} KB; ${round(firstBytes / 1024, 0)} KB on a browser's first visit), ${who}, sequential`,
          connections: 1,
          rps: 1000 / p50,
          p50: round(p50),
          p99: round(Math.max(...times)),
          target: targeted ? "<= 20 ms, <= 25 KB" : "report",
          pass: targeted ? p50 <= 20 && bytes <= 25 * 1024 : undefined,
        });
      }

      // 5b. The insight figures for the last year (docs/decisions/017-insights.md): every figure, server time. The SQL on
      //     one connection (the model function in one transaction of this process's, every statement in turn) and
      //     GET /api/insights end to end (the server reads on two connections in one snapshot: docs/performance.md).
      {
        const today = new Date().toISOString().slice(0, 10);
        const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
        const filter = { from, to: today, department: null };
        const insightsDb = drizzle(client, { schema });
        const sqlTimes: number[] = [];
        for (let i = 0; i < 3; i++) await insightsDb.transaction((tx) => computeInsights(filter, { db: tx })); // warm-up
        for (let i = 0; i < PAGE_RUNS; i++) {
          const t0 = performance.now();
          await insightsDb.transaction((tx) => computeInsights(filter, { db: tx }));
          sqlTimes.push(performance.now() - t0);
        }
        const url = `${base}/api/insights?from=${from}&to=${today}`;
        for (let i = 0; i < 3; i++) await timeGet(url, auth(adminToken)); // warm-up
        const httpTimes: number[] = [];
        let bytes = 0;
        for (let i = 0; i < PAGE_RUNS; i++) {
          const got = await timeGet(url, auth(adminToken));
          httpTimes.push(got.ms);
          bytes = got.bytes;
        }
        const httpMs = median(httpTimes);
        log(
          `insights for ${from}..${today}: SQL on one connection median ${round(median(sqlTimes))} ms, HTTP median ${round(httpMs)} ms`,
        );
        rows.push({
          scenario: `GET /api/insights, a year of ${MOCS} MOCs (all figures, ${round(bytes / 1024, 0)} KB), admin, sequential`,
          connections: 1,
          rps: 1000 / httpMs,
          p50: round(httpMs),
          p99: round(Math.max(...httpTimes)),
          target: "< 100 ms",
          pass: httpMs < 100,
        });
        rows.push({
          scenario: "the same figures' SQL on one connection (computeInsights in one transaction), sequential",
          connections: 1,
          rps: 1000 / median(sqlTimes),
          p50: round(median(sqlTimes)),
          p99: round(Math.max(...sqlTimes)),
          target: "reference",
        });
      }
      // 5c. The management review pack for the same year (docs/decisions/059-management-review-pack.md):
      //     Insight's figures with the MOCs behind each, GET /api/reviewPack end to end (target < 2 s).
      {
        const today = new Date().toISOString().slice(0, 10);
        const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
        const url = `${base}/api/reviewPack?from=${from}&to=${today}`;
        for (let i = 0; i < 3; i++) await timeGet(url, auth(adminToken)); // warm-up
        const times: number[] = [];
        let bytes = 0;
        for (let i = 0; i < PAGE_RUNS; i++) {
          const got = await timeGet(url, auth(adminToken));
          times.push(got.ms);
          bytes = got.bytes;
        }
        const ms = median(times);
        log(`review pack for ${from}..${today}: HTTP median ${round(ms)} ms`);
        rows.push({
          scenario: `GET /api/reviewPack, a year of ${MOCS} MOCs (figures and MOC lists, ${round(bytes / 1024, 0)} KB), admin, sequential`,
          connections: 1,
          rps: 1000 / ms,
          p50: round(ms),
          p99: round(Math.max(...times)),
          target: "< 2000 ms",
          pass: ms < 2000,
        });
      }
      // The read scenarios' peak without the admin list: before it, and (the mark reset) after it.
      if (peakReset) readsPeak.push(await peakMiB(server.pid));
      const readsPeakMiB = Math.max(...readsPeak);
      const readsHeap = await heapMiB(base);
      memory.unshift({
        measure:
          `server RSS high-water mark over the read scenarios, the admin list left out (` +
          `${readsPeak.map((m) => `${round(m, 0)} MiB`).join(" before it, ")}${peakReset ? " after it" : "; the mark could not be reset, so the pages and Insight are not in it"}; ` +
          `V8 heap at their end ${round(readsHeap.heapUsed, 0)} MiB used of ${round(readsHeap.heapTotal, 0)} committed, ${round(readsHeap.external, 0)} MiB external)`,
        mib: readsPeakMiB,
        target: "< 300 MiB",
        pass: readsPeakMiB < 300,
      });
    }

    // 6. One pipeline step, each request on its own MOC waiting at c.
    t = Date.now();
    await insertMocs(client, { from: MOCS + 1, to: MOCS + HSEQ_POOL, mode: "hseq-pool" });
    const pool = await hseqPool(client);
    log(`added ${pool.length} MOCs at c for the pipeline step in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    let next = 0;
    const hseqForm = {
      "hseq-change-adequately": { value: "yes" },
      "hseq-justification-satisfactory": { value: "yes" },
      "hseq-risk-assessment-covered": { value: "yes" },
    };
    const stepRequests = (): autocannon.Request[] => [
      {
        method: "POST",
        path: "/api/submit/hseq",
        setupRequest: (req) => {
          const n = next++;
          return {
            ...req,
            headers: {
              ...req.headers,
              ...auth(hseqTokens[n % hseqTokens.length]!),
              "Content-Type": "application/json",
            },
            body: JSON.stringify({ moc_id: pool[n % pool.length], hseq_form: hseqForm }),
          };
        },
      },
    ];
    const rounds: { floorRps: number; step: autocannon.Result }[] = [];
    for (let n = 1; n <= STEP_ROUNDS; n++) {
      await measureFloor();
      rounds.push({
        floorRps,
        step: await measure(base, `POST /api/submit/hseq, round ${n}`, CONNECTIONS, stepRequests),
      });
    }
    if (next > pool.length)
      log(`the pool of ${pool.length} MOCs ran out after ${pool.length} requests: later ones were 409`);
    const ratio = (r: (typeof rounds)[number]) => r.step.requests.average / r.floorRps;
    const middle = [...rounds].sort((a, b) => ratio(a) - ratio(b))[STEP_ROUNDS >> 1]!;
    const non2xx = rounds.reduce((sum, r) => sum + r.step.non2xx, 0);
    rows.push({
      scenario:
        `POST /api/submit/hseq (one pipeline step: c -> d, 3 emails queued), distinct MOCs; median of ${STEP_ROUNDS}` +
        ` rounds, each after its own floor run (${rounds.map((r) => `${round(100 * ratio(r), 1)}%`).join(", ")})`,
      connections: CONNECTIONS,
      rps: middle.step.requests.average,
      p50: middle.step.latency.p50,
      p99: middle.step.latency.p99,
      floorRps: middle.floorRps,
      target: ">= 30% of floor req/s",
      pass: ratio(middle) >= 0.3,
      note: non2xx ? `${non2xx} non-2xx` : undefined,
    });

    const byRps = [...floors].sort((a, b) => a.requests.average - b.requests.average);
    const typical = byRps[byRps.length >> 1]!;
    rows.unshift({
      scenario: `floor: Remix resource route, constant 2 KB JSON (median of ${floors.length} runs: ${floors
        .map((f) => round(f.requests.average, 0))
        .join(", ")} req/s)`,
      connections: CONNECTIONS,
      rps: typical.requests.average,
      p50: typical.latency.p50,
      p99: typical.latency.p99,
      target: `>= ${100 * FLOOR_OF_BARE_REMIX}% of bare Remix`,
      pass: typical.requests.average >= FLOOR_OF_BARE_REMIX * bareRemixRps!,
    });
    rows.unshift(...bareRows);

    // 7. Email: bursts through a worker process, latency on an idle queue, the reminder at scale.
    //    The web server runs workers too, so it stops first: the bench's worker alone takes the jobs.
    await server.stop();
    server = undefined;
    if (!ONLY_STEP && !ONLY_CORE) rows.push(...(await emailBench(database.url, client)));

    console.log(
      `\nMachine: ${cores} x ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,` +
        ` Node ${process.version}, ${version.split(" on ")[0]}; ${SECONDS} s per scenario after a 2 s warm-up (5 s for the server);` +
        ` load average ${load()} at the end.`,
    );
    printTable(rows);
    if (adminSummary) console.log(adminSummary);
    if (memory.length) {
      const lines = memory.map(
        (m) =>
          `| ${m.measure} | ${round(m.mib, 0)} | ${m.target} | ${m.pass === undefined ? "" : m.pass ? "pass" : "MISSED"} |`,
      );
      console.log(`\n| memory | MiB | target | result |\n| --- | --- | --- | --- |\n${lines.join("\n")}\n`);
    }
    const missed = [...rows, ...memory.map((m) => ({ ...m, scenario: m.measure }))].filter((r) => r.pass === false);
    console.log(
      missed.length
        ? `MISSED ${missed.length} target(s): ${missed.map((r) => r.scenario).join("; ")}`
        : "Every target met.",
    );
    console.log(`Total time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  } finally {
    await stopAll();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
