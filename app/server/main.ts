/**
 * `npm start`: load the production build and start the web process it carries
 * (app/server/web.ts, exported by app/entry.server.tsx). Run by Node itself (`node
 * app/server/main.ts`: Node 24 strips the types), not through a TypeScript loader, and it imports
 * nothing of the app but the build: a loader in the process and a second copy of the models beside
 * the bundle's cost about 200 MiB of resident memory (docs/performance.md, "One module graph").
 * Hence the relative import with its extension and no path alias here.
 */
// First: on a Node older than the app supports, stop with one line before anything else loads.
import "./node-version.ts";
import type { ServerBuild } from "@remix-run/node";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

type WebBuild = ServerBuild & {
  entry: { module: { startWebServer: (build: ServerBuild, clientDir: string) => Promise<void> } };
};

const root = fileURLToPath(new URL("../../", import.meta.url));
const buildEntry = `${root}build/server/index.js`;

async function main() {
  if (!existsSync(buildEntry)) {
    console.error("no production build found: run `npm run build` first (npm start does it for you)");
    process.exit(1);
  }
  const build = (await import(pathToFileURL(buildEntry).href)) as WebBuild;
  await build.entry.module.startWebServer(build, `${root}build/client`);
}

main().catch((error: unknown) => {
  console.error(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
