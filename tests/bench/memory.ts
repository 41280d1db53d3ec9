/**
 * The server's memory as Linux reports it (/proc/<pid>/status): resident size now (VmRSS), its
 * high-water mark (VmHWM), and a reset of that mark (`5` written to /proc/<pid>/clear_refs), so
 * `npm run bench` can report the peak of one group of scenarios apart from another (issue 43's
 * memory targets, docs/performance.md).
 */
import fs from "node:fs/promises";

async function statusMiB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  return Number(status.match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m"))?.[1] ?? 0) / 1024;
}

/** Resident memory now, MiB. */
export const rssMiB = (pid: number) => statusMiB(pid, "VmRSS");

/** The most resident memory since the process started or since `resetPeak`, MiB. */
export const peakMiB = (pid: number) => statusMiB(pid, "VmHWM");

/** Starts the high-water mark again from the present; false where the kernel does not allow it. */
export async function resetPeak(pid: number): Promise<boolean> {
  try {
    await fs.writeFile(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` while sampling the resident memory every 20 ms: what it returns, and the peak. */
export async function sampling<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = await rssMiB(pid);
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMiB(pid).catch(() => 0));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    await sampler;
  }
  return { result, peakMiB: Math.max(peak, await rssMiB(pid).catch(() => 0)) };
}

/**
 * What the server's JavaScript heap holds, from its own GET /metrics (prom-client's default
 * metrics, open to loopback without METRICS_TOKEN): V8's heap committed and used, and memory
 * outside it that V8 tracks (Buffers), MiB. The rest of the resident size is code, the threads'
 * stacks and what native code allocates.
 */
export async function heapMiB(base: string): Promise<{ heapTotal: number; heapUsed: number; external: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)`, "m"))?.[1] ?? NaN) / 1048576;
  return {
    heapTotal: value("nodejs_heap_size_total_bytes"),
    heapUsed: value("nodejs_heap_size_used_bytes"),
    external: value("nodejs_external_memory_bytes"),
  };
}
