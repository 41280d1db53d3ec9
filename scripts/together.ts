/**
 * Runs commands at the same time and fails if any fails, as `a & b & wait` would but with each
 * command's output printed whole, in the order given, once it has ended (never interleaved):
 *
 *   node --import tsx scripts/together.ts "tsc --noEmit" "eslint ."
 *
 * `npm run lint` runs the type check and ESLint through it: each mostly uses one core, and CI has
 * two (issue 39: CI's time).
 */
import { spawn } from "node:child_process";

const commands = process.argv.slice(2);
const runs = commands.map(
  (command) =>
    new Promise<{ command: string; code: number; output: string; seconds: number }>((resolve) => {
      const started = Date.now();
      const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.on("close", (code) =>
        resolve({ command, code: code ?? 1, output, seconds: (Date.now() - started) / 1000 }),
      );
    }),
);
let failed = 0;
for (const run of runs) {
  const { command, code, output, seconds } = await run;
  process.stdout.write(output);
  console.log(`${code === 0 ? "ok" : `failed (${code})`}: ${command} (${seconds.toFixed(1)} s)`);
  if (code !== 0) failed = code;
}
process.exit(failed);
