/**
 * The bare references of `npm run bench` (issue 43): plain node:http, bare Express 4 and a bare
 * Remix v2 resource route answering the floor's constant JSON (tests/bench/bare-server.ts), each in
 * its own process, measured with the same autocannon settings as the app's floor, in the same run.
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "bare-server.ts");
export const BARE_KINDS = {
  node: "bare node:http",
  express: "bare Express 4",
  remix: "bare Remix v2 resource route (createRequestHandler behind a 10-line Express adapter)",
} as const;
export type BareKind = keyof typeof BARE_KINDS;

/** One bare server measured: warm-up, then `seconds` at `connections`. */
export async function measureBare(
  kind: BareKind,
  options: { port: number; connections: number; seconds: number },
): Promise<autocannon.Result> {
  const child = spawn(process.execPath, ["--import", "tsx", SERVER, kind, String(options.port)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("ready")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`${BARE_KINDS[kind]} exited (${code}):\n${output}`)));
    });
    const url = `http://127.0.0.1:${options.port}/api/floor`;
    await autocannon({ url, connections: options.connections, duration: 3 });
    const result = await autocannon({ url, connections: options.connections, duration: options.seconds });
    if (result.non2xx + result.errors + result.timeouts > 0) {
      throw new Error(
        `${BARE_KINDS[kind]}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
    return result;
  } finally {
    child.kill("SIGTERM");
  }
}
