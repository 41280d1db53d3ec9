/**
 * The project's folder (the one holding package.json), found upwards from the calling module, so
 * a path into the project is right whether that module runs from its source (tsx, tests, scripts)
 * or bundled into build/server/index.js (the web process, app/server/main.ts).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function projectRoot(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
