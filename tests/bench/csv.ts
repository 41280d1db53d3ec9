/**
 * `npm run bench -- --only csv`: the MOC list's CSV export of every seeded MOC (10,000 rows) as the
 * admin, read as a client reads it, with the server's resident memory sampled every 20 ms: before
 * the request, and its peak while the rows stream out. The export reads a cursor in batches of
 * CSV_BATCH rows (app/models/csv-export.server.ts), so the peak should stay near the baseline
 * instead of growing with the list. Not a timed target: one row of numbers for docs/performance.md.
 */
import fs from "node:fs/promises";
import { performance } from "node:perf_hooks";

export type CsvBenchResult = {
  rows: number;
  bytes: number;
  ms: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  /** The peak while the same list is answered as JSON, for comparison (the whole list is built). */
  jsonPeakMiB: number;
};

async function rssMiB(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1] ?? 0);
  return kb / 1024;
}

/** Reads `url` to its end, sampling the server's memory meanwhile; the body's bytes, lines and peak. */
async function readSampling(url: string, headers: Record<string, string>, pid: number) {
  let peak = await rssMiB(pid);
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssMiB(pid));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 0x0a) lines += 1;
  }
  const ms = performance.now() - started;
  sampling = false;
  await sampler;
  return { bytes, lines, ms, peak };
}

export async function csvBench(base: string, token: string, pid: number): Promise<CsvBenchResult> {
  const headers = { Authorization: `Bearer ${token}` };
  // Warm-up: the route, the cursor query's plan, the pool.
  await readSampling(`${base}/api/getAllMoc?format=csv&q=no-such-moc`, headers, pid);
  await new Promise((r) => setTimeout(r, 500));
  const rssBeforeMiB = await rssMiB(pid);
  const csv = await readSampling(`${base}/api/getAllMoc?format=csv`, headers, pid);
  await new Promise((r) => setTimeout(r, 500));
  const json = await readSampling(`${base}/api/getAllMoc`, headers, pid);
  return {
    rows: csv.lines - 1,
    bytes: csv.bytes,
    ms: csv.ms,
    rssBeforeMiB,
    rssPeakMiB: csv.peak,
    jsonPeakMiB: json.peak,
  };
}
