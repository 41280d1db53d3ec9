/**
 * The citation check of `npm run lint` (scripts/check-citations.ts): it fails on a comment or doc
 * that cites a path the repository does not have or a document outside it, and passes on this
 * repository. The failing cases run on a small tree in a temporary folder.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCitations } from "../../scripts/check-citations";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
let tree = "";

async function write(file: string, text: string) {
  await fs.mkdir(path.dirname(path.join(tree, file)), { recursive: true });
  await fs.writeFile(path.join(tree, file), text);
}

/** The problems found when `file` (and nothing else but the fixed files below) says `text`. */
async function problemsWith(file: string, text: string) {
  await write(file, text);
  try {
    return checkCitations(tree).map((p) => `${p.file}:${p.line}: ${p.message}`);
  } finally {
    await fs.rm(path.join(tree, file));
  }
}

beforeAll(async () => {
  tree = await fs.mkdtemp(path.join(os.tmpdir(), "cm-citations-"));
  await write("docs/api-contract.md", "# The contract\n");
  await write("docs/decisions/004-moc-workflow.md", "# 004\n\nSee [the contract](../api-contract.md).\n");
  await write(
    "app/models/authz/authz.server.ts",
    "/** Who may do what (docs/decisions/004). */\nexport const x = 1;\n",
  );
});

afterAll(async () => {
  if (tree) await fs.rm(tree, { recursive: true, force: true });
});

describe("scripts/check-citations.ts", () => {
  it("passes a tree whose comments and docs cite what it holds", () => {
    expect(checkCitations(tree)).toEqual([]);
  });

  it("fails a comment citing a path that does not exist, with its file and line", async () => {
    const problems = await problemsWith(
      "app/models/moc/moc.server.ts",
      "export const y = 2;\n// The rules: app/models/authz/authz.server.ts and app/models/gone.server.ts.\n",
    );
    expect(problems).toEqual(["app/models/moc/moc.server.ts:2: cites app/models/gone.server.ts, which does not exist"]);
  });

  it("fails a comment citing ../shared or a document the repository does not have", async () => {
    const problems = await problemsWith(
      "app/models/pcr/pcr.server.ts",
      "/**\n * As ../shared/spec says,\n * and as clarifications.md adds.\n */\nexport const z = 3;\n",
    );
    expect(problems).toEqual([
      "app/models/pcr/pcr.server.ts:2: cites ../shared (outside the repository)",
      "app/models/pcr/pcr.server.ts:3: cites clarifications.md, which is not in the repository",
    ]);
  });

  it("fails a comment citing a section of the specification by name", async () => {
    const problems = await problemsWith(
      "db/schema/enums.ts",
      '/** MOC statuses (spec "States and transitions"). */\n// Clarifications section 4.\nexport const s = 1;\n',
    );
    expect(problems).toEqual([
      "db/schema/enums.ts:1: cites a section of the spec",
      "db/schema/enums.ts:2: cites a section of the clarifications",
    ]);
  });

  it("fails a Markdown link that does not resolve from the doc's own folder", async () => {
    const problems = await problemsWith(
      "docs/decisions/005-pcr.md",
      "# 005\n\nSee [004](004-moc-workflow.md) and [x](../x.md).\n",
    );
    expect(problems).toEqual(["docs/decisions/005-pcr.md:3: links to ../x.md, which is not in the repository"]);
  });

  it("reads comments only in code: a string naming a missing path is not a citation", async () => {
    const problems = await problemsWith("app/models/paths.ts", 'export const p = "app/models/not-here.ts";\n');
    expect(problems).toEqual([]);
  });

  it("passes on this repository, and the command exits 1 on a bad tree", async () => {
    expect(checkCitations(repo)).toEqual([]);
    await write("docs/bad.md", "See ../shared/docs/conventions.md.\n");
    const failed = await run(
      process.execPath,
      ["--import", "tsx", path.join(repo, "scripts/check-citations.ts"), tree],
      {
        cwd: repo,
      },
    ).then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    await fs.rm(path.join(tree, "docs/bad.md"));
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toContain("docs/bad.md:1: cites ../shared (outside the repository)");
  }, 120_000);
});
