import { spawn, type ChildProcess } from "node:child_process";

export type Worker = {
  child: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

/** Starts `jobs/worker.ts` (what `npm run worker` runs) as a real process on this test's database. */
export async function startWorkerProcess(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // The worker says when it is up: that line ends the wait, its exit or the deadline fail it.
  let started = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes("workers are running")) started();
  };
  child.stdout!.on("data", read);
  child.stderr!.on("data", read);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let deadline: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    running.then(() => "running" as const),
    exited.then(() => "exited" as const),
    // A shared, loaded machine can take that long to start one.
    new Promise<"late">((resolve) => (deadline = setTimeout(() => resolve("late"), 60_000))),
  ]);
  clearTimeout(deadline);
  if (outcome !== "running") {
    child.kill("SIGKILL");
    throw new Error(`worker did not start:\n${output}`);
  }
  return {
    child,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Worker processes delivering through the fake Resend at `fakeUrl()`. Queue settings live in the
 * database, so the test process (which sends the jobs) must run with the same `shared` settings,
 * as the instances of a deployment do. Stop them all in `afterEach`.
 */
export function emailWorkers(shared: Record<string, string>, fakeUrl: () => string) {
  const running: Worker[] = [];
  return {
    async start(extra: Record<string, string> = {}): Promise<Worker> {
      const worker = await startWorkerProcess({
        DATABASE_URL: process.env.DATABASE_URL!,
        SESSION_SECRET: process.env.SESSION_SECRET!,
        RESEND_API_KEY: "re_test_key",
        RESEND_BASE_URL: fakeUrl(),
        ...shared,
        ...extra,
      });
      running.push(worker);
      return worker;
    },
    /** Kills one with `signal` and forgets it. */
    async kill(worker: Worker, signal: NodeJS.Signals): Promise<void> {
      await worker.stop(signal);
      running.splice(running.indexOf(worker), 1);
    },
    async stopAll(): Promise<void> {
      await Promise.all(running.splice(0).map((w) => w.stop("SIGTERM")));
    },
  };
}
