/**
 * Runs npm scripts one after another, as `a && b && c` would, and prints how long each took.
 *
 *   node --import tsx scripts/stages.ts lint test:integration test:e2e test:cluster
 *
 * `npm test` runs the whole suite through it, so CI's log ends with each stage's duration (issue
 * 39: CI's time is watched stage by stage). It stops at the first stage that fails, with its code.
 */
import { spawnSync } from "node:child_process";

const stages = process.argv.slice(2);
const took: [stage: string, seconds: number, ok: boolean][] = [];
let code = 0;
for (const stage of stages) {
  const started = Date.now();
  const run = spawnSync("npm", ["run", "-s", stage], { stdio: "inherit" });
  code = run.status ?? 1;
  took.push([stage, (Date.now() - started) / 1000, code === 0]);
  if (code !== 0) break;
}
const width = Math.max(...stages.map((s) => s.length));
console.log("\nstage durations:");
for (const [stage, seconds, ok] of took) {
  const whole = Math.round(seconds);
  const clock = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  console.log(`  ${stage.padEnd(width)}  ${clock}${ok ? "" : "  (failed)"}`);
}
for (const stage of stages.slice(took.length)) console.log(`  ${stage.padEnd(width)}  not run`);
process.exit(code);
