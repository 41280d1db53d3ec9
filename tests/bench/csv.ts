/**
 * `npm run bench -- --only csv`: the MOC list's CSV export of every seeded MOC (10,000 rows) as the
 * admin, read as a client reads it, with the server's resident memory sampled every 20 ms: before
 * the request, and its peak while the rows stream out. The export reads a cursor in batches of
 * CSV_BATCH rows (app/models/records-out/csv-export.server.ts), so the peak should stay near the baseline
 * instead of growing with the list. Not a timed target: one row of numbers for docs/performance.md.
 */
import { performance } from "node:perf_hooks";
import { rssMiB, sampling } from "./memory";

export type CsvBenchResult = {
  rows: number;
  bytes: number;
  ms: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  /** The peak while the same list is answered as JSON, for comparison (the whole list is built). */
  jsonPeakMiB: number;
};

/** Reads `url` to its end, sampling the server's memory meanwhile; the body's bytes, lines and peak. */
async function readSampling(url: string, headers: Record<string, string>, pid: number) {
  const started = performance.now();
  const { result, peakMiB } = await sampling(pid, async () => {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 0x0a) lines += 1;
    }
    return { bytes, lines };
  });
  return { ...result, ms: performance.now() - started, peak: peakMiB };
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
