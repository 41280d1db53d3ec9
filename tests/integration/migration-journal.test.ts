/**
 * The migration journal (db/migrations/meta/_journal.json) in the order the migrations must run.
 * Drizzle's migrator applies the journal's entries in the order listed, and on an existing database
 * only those whose `when` is later than the last one applied: an entry out of place (a merge of two
 * branches appends it at the end) runs after later migrations on a new database, and never on an
 * upgraded one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type Entry = { idx: number; when: number; tag: string };
const folder = new URL("../../db/migrations/", import.meta.url);
const journal = JSON.parse(readFileSync(new URL("meta/_journal.json", folder), "utf8")) as { entries: Entry[] };

describe("the migration journal", () => {
  it("lists every migration file once, by number, each later than the one before", () => {
    const { entries } = journal;
    expect(entries.map((e) => e.idx)).toEqual([...entries.map((e) => e.idx)].sort((a, b) => a - b));
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.when).toBeGreaterThan(entries[i - 1]!.when);
    for (const e of entries) expect(e.tag.startsWith(String(e.idx).padStart(4, "0"))).toBe(true);
    const files = readdirSync(folder).filter((name) => name.endsWith(".sql"));
    expect(entries.map((e) => `${e.tag}.sql`).sort()).toEqual(files.sort());
  });
});
