/**
 * Imported first by the entry points (app/server/main.ts, jobs/worker.ts): on a Node older than
 * the app supports, stop with one line before anything else loads
 * (docs/decisions/014-node-24-runtime.md).
 */

/** The oldest Node the app supports: package.json `engines` (docs/decisions/014-node-24-runtime.md). */
const MINIMUM_NODE = "22.12.0";

/** A one-line reason when this Node is older than the app supports, else null. */
export function unsupportedNode(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [minMajor, minMinor] = MINIMUM_NODE.split(".").map(Number) as [number, number];
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return null;
  return (
    `Node ${version} is too old: Change Management needs Node ${MINIMUM_NODE} or later. ` +
    `Start it with npm (npm start, npm run worker), which uses the Node 24 that npm install puts in node_modules.`
  );
}

const tooOld = unsupportedNode();
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}
