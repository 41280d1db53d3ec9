/**
 * `npm run build`, unless the production build in `build/` was made from exactly these sources.
 *
 *   node --import tsx scripts/build-once.ts
 *
 * `npm start`, the JavaScript budget (`npm run budget`) and the browser tests each need the
 * production build; CI used to make it three times in a row from the same checkout (issue 39). The
 * build records a digest of what it was made from (`build/.sources`): every file under app, db,
 * jobs and public, and the configuration and lock files, by path and content. When the digest
 * matches, the build is reused; anything else (a changed, added or removed file, no build, a build
 * from before this script) builds again. `npm run build` itself always builds.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const STAMP = path.join(root, "build", ".sources");
const FOLDERS = ["app", "db", "jobs", "public"];
const FILES = ["package.json", "package-lock.json", "tsconfig.json", "vite.config.ts"];

function* filesUnder(folder: string): Generator<string> {
  if (!existsSync(folder)) return;
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/** The digest of the build's sources: each file's path and content, in a fixed order. */
export function sourcesDigest(): string {
  const hash = createHash("sha256");
  const files = [
    ...FOLDERS.flatMap((f) => [...filesUnder(path.join(root, f))]),
    ...FILES.map((f) => path.join(root, f)),
  ];
  for (const file of files) {
    hash.update(path.relative(root, file)).update("\0");
    hash.update(existsSync(file) ? readFileSync(file) : "(none)").update("\0");
  }
  return hash.digest("hex");
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const digest = sourcesDigest();
  const built = existsSync(STAMP) ? readFileSync(STAMP, "utf8").trim() : null;
  if (built === digest && existsSync(path.join(root, "build", "server", "index.js"))) {
    console.log("build: reusing build/ (made from these sources)");
  } else {
    const started = Date.now();
    const run = spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) process.exit(run.status ?? 1);
    writeFileSync(STAMP, `${digest}\n`);
    console.log(`build: made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
