/**
 * Comments and docs cite only what is in the repository (docs/api-contract.md stands in for the
 * specification, which is not shipped). This check reads every comment of the code (TypeScript and
 * TSX through the compiler's own comment ranges, `--` in SQL, `#` in shell and YAML, `/* *\/` in
 * CSS) and the whole text of every Markdown file, and fails when one:
 * - names a repository path (`app/...`, `db/...`, `docs/...`, `tests/...`, `scripts/...`,
 *   `jobs/...`, `public/...`, `.ci/...`) that does not exist (a Markdown link is resolved from its
 *   own folder, a path without extension may name a module, `app/models/authz/authz.server`, and a
 *   decision may be named by its number, `docs/decisions/026`);
 * - cites a document outside the repository: `../shared/...`, or a Markdown file by a bare name
 *   that no file of the repository has (`spec.md`, `clarifications.md`, `conventions.md`);
 * - cites a section of the specification by name (`clarifications section 4`, `spec "PCR"`).
 *
 *   node --import tsx scripts/check-citations.ts [root]
 *
 * Prints one line per bad citation (`file:line: message`) and exits 1 when there is any
 * (`npm run lint` runs it; tests/integration/check-citations.test.ts shows it failing on a bad
 * citation and passing on the repository).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Folders never read: dependencies, build output, data and reports. */
const SKIPPED_DIRS = new Set([
  "node_modules",
  ".git",
  "build",
  ".data",
  "test-results",
  "playwright-report",
  "uploads",
  ".cache",
]);
const ROOTS = ["app", "db", "docs", "tests", "scripts", "jobs", "public", ".ci"];
/** A repository path: a top folder, then characters of file names (`+`, `$`, `[.]` included). */
const PATH_PATTERN = new RegExp(
  `(?<![\\w./~#@-])(?:\\./)?((?:${ROOTS.map((r) => r.replace(".", "\\.")).join("|")})/[\\w.+$@\\[\\]/-]*[\\w\\]+$])`,
  "g",
);
const MODULE_EXTENSIONS = [".ts", ".tsx", ".js", ".md", ".sql", ".json", ".css", ".sh"];
/** Citations of documents or sections that are not in the repository. */
const OUTSIDE: { pattern: RegExp; message: string }[] = [
  { pattern: /\.\.\/shared\b/, message: "cites ../shared (outside the repository)" },
  { pattern: /\bclarifications?\s*(?:§|section|sections)\s*\d/i, message: "cites a section of the clarifications" },
  {
    pattern: /\bspec(?:'s)?\s+(?:"|§|section\b|access rules?\b|Events table\b)/i,
    message: "cites a section of the spec",
  },
];

export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** Every file under `root`, as paths relative to it with forward slashes. */
function listFiles(root: string, dir = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(root, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** A piece of text to check and the line of the file it starts on. */
interface Span {
  text: string;
  line: number;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The comments of a TypeScript or TSX file, each once, found by the compiler (not by a regex). */
function tsComments(file: string, text: string): Span[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, Span>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.set(range.pos, { text: text.slice(range.pos, range.end), line: lineAt(text, range.pos) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...seen.values()];
}

/** The part of each line after a line-comment marker (`--` in SQL, `#` in shell and YAML). */
function lineComments(text: string, marker: RegExp): Span[] {
  const spans: Span[] = [];
  text.split("\n").forEach((content, i) => {
    const match = marker.exec(content);
    if (match) spans.push({ text: content.slice(match.index), line: i + 1 });
  });
  return spans;
}

function spansOf(file: string, text: string): Span[] {
  if (/\.(ts|tsx|mts|cts)$/.test(file)) return tsComments(file, text);
  if (file.endsWith(".md")) return [{ text, line: 1 }];
  if (file.endsWith(".sql")) return lineComments(text, /--/);
  if (/\.(sh|ya?ml)$/.test(file) || file.startsWith(".ci/")) return lineComments(text, /(^|\s)#/);
  if (file.endsWith(".css")) {
    return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => ({ text: m[0], line: lineAt(text, m.index) }));
  }
  return [];
}

/** Whether a cited path names a file or folder (or a module without its extension). */
function exists(root: string, cited: string): boolean {
  const clean = cited.replace(/[#?].*$/, "").replace(/\/$/, "");
  const full = path.join(root, clean);
  if (existsSync(full)) return true;
  if (MODULE_EXTENSIONS.some((ext) => existsSync(full + ext))) return true;
  // A decision by its number (`docs/decisions/026`) names the record `026-<slug>.md`.
  const dir = path.dirname(full);
  const base = path.basename(full);
  return /^\d{3}$/.test(base) && existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(`${base}-`));
}

/** Checks every comment and doc under `root`; an empty list means every citation holds. */
export function checkCitations(root: string): Problem[] {
  const files = listFiles(root);
  const basenames = new Set(files.map((f) => path.posix.basename(f)));
  const problems: Problem[] = [];
  for (const file of files) {
    if (file === "scripts/check-citations.ts") continue; // It names the bad citations it looks for.
    const spans = spansOf(file, readFileSync(path.join(root, file), "utf8"));
    for (const span of spans) {
      const at = (index: number) => span.line + lineAt(span.text, index) - 1;
      const report = (index: number, message: string) => problems.push({ file, line: at(index), message });
      for (const { pattern, message } of OUTSIDE) {
        const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : pattern.flags + "g");
        for (const m of span.text.matchAll(global)) report(m.index, message);
      }
      for (const m of span.text.matchAll(/(?<![\w/.-])([\w.-]+\.md)\b/g)) {
        const name = m[1] ?? "";
        if (!basenames.has(name)) report(m.index, `cites ${name}, which is not in the repository`);
      }
      for (const m of span.text.matchAll(PATH_PATTERN)) {
        const cited = m[1] ?? "";
        if (/[*{]/.test(cited)) continue; // A glob names a pattern, not a file.
        if (!exists(root, cited)) report(m.index, `cites ${cited}, which does not exist`);
      }
      if (file.endsWith(".md")) {
        // Relative Markdown links resolve from the file's own folder.
        for (const m of span.text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = (m[1] ?? "").replace(/#.*$/, "");
          if (!target || /^[a-z]+:/i.test(target) || target.startsWith("/")) continue;
          const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
          if (resolved.startsWith("..") || !exists(root, resolved)) {
            report(m.index, `links to ${target}, which is not in the repository`);
          }
        }
      }
    }
  }
  return problems;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  if (!statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);
  const problems = checkCitations(root);
  for (const p of problems) process.stdout.write(`${p.file}:${p.line}: ${p.message}\n`);
  if (problems.length > 0) {
    process.stdout.write(
      `${problems.length} bad citation(s): cite docs/ (docs/api-contract.md for the /api contract).\n`,
    );
    process.exitCode = 1;
  }
}
