/**
 * `npm run bench:insights`: the insight figures alone, at any size, without the server. Seeds
 * BENCH_MOCS MOCs (default 10,000) as `npm run bench` does, plus their reminders and one PCR per ten
 * MOCs, into BENCH_DATABASE (default cm_bench_insights), then times computeInsights for the last
 * year and for each department, sequentially (median and max of 10 runs after 3 warm-ups), as the
 * server computes them (its pool: one snapshot on two connections) and on one connection; then the
 * management review pack for the same year (docs/decisions/059-management-review-pack.md): its
 * figures and MOC lists, and its description laid out as the PDF (on this thread, not the worker).
 * Used for docs/performance.md's figures at 10,000 and 100,000 MOCs. `BENCH_STATEMENTS=1` also
 * prints, for all departments, each statement's median time (what to look at first).
 */
import "../../app/models/kinds/record-kinds.server";
import { drizzle } from "drizzle-orm/postgres-js";
import { PgDialect } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { DEPARTMENTS } from "../../db/schema/enums";
import * as schema from "../../db/schema";
import { migrateDatabase } from "../../db/migrate";
import { closeDb, preparing } from "../../db/client";
import { computeInsights } from "../../app/models/insights/insights.server";
import { computeReviewPack, reviewPackRecord } from "../../app/models/insights/review-pack.server";
import { recordPdf } from "../../app/models/records-out/record-pdf.server";
import { insertInsightExtras, insertMocs, insertUsers } from "./data";

process.env.BENCH_DATABASE ??= "cm_bench_insights";
const { openDatabase } = await import("./server");
const MOCS = Number(process.env.BENCH_MOCS ?? 10_000);
const RUNS = 10;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const round = (n: number) => Math.round(n * 10) / 10;

const database = await openDatabase();
const client = postgres(database.url, { max: 2, onnotice: () => {} });
// The app's own pool (db/client.ts) on the same database, for computeInsights as the server calls it.
process.env.DATABASE_URL = database.url;
try {
  await migrateDatabase(database.url);
  const t = performance.now();
  await insertUsers(client);
  await insertMocs(client, { from: 1, to: MOCS, mode: "mix" });
  await insertInsightExtras(client, MOCS / 10);
  const [counts] = await client<{ mocs: number; logs: number; reminders: number; pcrs: number }[]>`
    select (select count(*)::int from mocs) as mocs, (select count(*)::int from moc_logs) as logs,
           (select count(*)::int from moc_reminders) as reminders, (select count(*)::int from pcrs) as pcrs`;
  console.log(
    `seeded ${counts!.mocs} MOCs, ${counts!.logs} audit entries, ${counts!.reminders} reminders, ${counts!.pcrs} PCRs` +
      ` in ${round((performance.now() - t) / 1000)} s`,
  );
  // Through the same prepared-statement client the server uses (db/client.ts).
  const statements = process.env.BENCH_STATEMENTS === "1" ? new Map<string, number[]>() : null;
  const db = drizzle(preparing(client), { schema });
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
  for (const department of [null, ...DEPARTMENTS]) {
    const filter = { from, to: today, department };
    // As the server computes them (the app's pool, one snapshot on two connections), and on one
    // connection in turn (a caller's transaction: the year-end review's).
    const ways = {
      app: () => computeInsights(filter),
      "one connection": () => db.transaction((tx) => computeInsights(filter, { db: timed(tx, statements) })),
    };
    const times: Record<keyof typeof ways, number[]> = { app: [], "one connection": [] };
    let opened = 0;
    for (const way of Object.values(ways)) for (let i = 0; i < 3; i++) await way();
    for (let i = 0; i < RUNS; i++) {
      for (const [name, way] of Object.entries(ways) as [
        keyof typeof ways,
        () => Promise<{ totals: { opened: number } }>,
      ][]) {
        const t0 = performance.now();
        opened = (await way()).totals.opened;
        times[name].push(performance.now() - t0);
      }
    }
    console.log(
      `insights ${from}..${today}, ${department ?? "all departments"} (${opened} MOCs opened): ` +
        `median ${round(median(times.app))} ms, max ${round(Math.max(...times.app))} ms` +
        ` (on one connection: median ${round(median(times["one connection"]))} ms)`,
    );
    if (statements && department === null) {
      for (const [text, ms] of statements) console.log(`  ${round(median(ms)).toString().padStart(7)} ms  ${text}`);
    }
    statements?.clear();
  }
  {
    const filter = { from, to: today, department: null };
    const once = async () => {
      const t0 = performance.now();
      const pack = await db.transaction((tx) => computeReviewPack(filter, { db: tx }));
      const t1 = performance.now();
      const doc = recordPdf(reviewPackRecord(pack));
      let bytes = 0;
      for await (const chunk of doc) bytes += (chunk as Buffer).length;
      return { figures: t1 - t0, total: performance.now() - t0, bytes, json: JSON.stringify(pack).length };
    };
    for (let i = 0; i < 3; i++) await once();
    const runs: Awaited<ReturnType<typeof once>>[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once());
    console.log(
      `review pack ${from}..${today}, all departments: figures and MOC lists median ${round(median(runs.map((r) => r.figures)))} ms` +
        ` (max ${round(Math.max(...runs.map((r) => r.figures)))} ms, JSON ${round(runs[0]!.json / 1024)} KB);` +
        ` with the PDF laid out median ${round(median(runs.map((r) => r.total)))} ms (max ${round(Math.max(...runs.map((r) => r.total)))} ms, PDF ${round(runs[0]!.bytes / 1024)} KB)`,
    );
  }
} finally {
  await closeDb();
  await client.end({ timeout: 5 });
  await database.close();
}

/**
 * A transaction timing each `execute` it is given (by the statement's first words, which tell the
 * insight statements apart), for BENCH_STATEMENTS.
 */
function timed<T extends object>(tx: T, into: Map<string, number[]> | null): T {
  if (!into) return tx;
  return new Proxy(tx, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "execute" || typeof value !== "function") return value;
      return async (query: SQL) => {
        const text = new PgDialect().sqlToQuery(query).sql.replace(/\s+/g, " ").trim().slice(0, 100);
        const t0 = performance.now();
        const result = (await (value as (q: SQL) => Promise<unknown>).call(target, query)) as unknown;
        into.set(text, [...(into.get(text) ?? []), performance.now() - t0]);
        return result;
      };
    },
  });
}
