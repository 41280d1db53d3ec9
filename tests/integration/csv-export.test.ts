/**
 * CSV exports of the MOC, PCR and archive lists through /api (`format=csv` or `Accept: text/csv`):
 * the page's filters, a byte-order mark, ISO dates, names, and formula cells made inert.
 */
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as allPcr from "~/routes/api+/allPcr";
import * as getAllMoc from "~/routes/api+/getAllMoc";
import * as oldMoc from "~/routes/api+/oldMoc";
import * as oldPcr from "~/routes/api+/oldPcr";
import { csvCell } from "~/models/records-out/csv-export.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk } from "../helpers/pcr";
import { buildRequest, call } from "../helpers/request";

async function csvOf(
  route: typeof getAllMoc,
  path: string,
  user: { _id: string },
  query: Record<string, string>,
  accept = false,
) {
  const request = await buildRequest({
    path,
    query: accept ? query : { ...query, format: "csv" },
    token: await tokenFor(user as never),
    headers: accept ? { Accept: "text/csv" } : {},
  });
  const res = await route.loader({ request, params: {}, context: {} } as never);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString()).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
  expect(res.headers.get("Content-Disposition")).toMatch(/^attachment; filename=".+-\d{4}-\d{2}-\d{2}\.csv"$/);
  // UTF-8 with a byte-order mark, for Excel.
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return { text: bytes.subarray(3).toString("utf8") };
}

/** The rows of a CSV body. */
const rowsOf = (text: string): string[][] => parse(text) as string[][];

describe("csvCell", () => {
  it("neutralises cells a spreadsheet would run, and quotes what needs quoting", () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    for (const lead of ["=", "+", "-", "@", "\t", "\r"]) expect(csvCell(`${lead}1`).replace(/^"/, "")).toMatch(/^'/);
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("yes");
  });

  it("neutralises a formula after a separator, which a semicolon locale would make a cell of its own", () => {
    // Excel in a locale whose list separator is `;` splits an unquoted `x;=cmd|...` into `x` and a formula.
    expect(csvCell("x;=cmd|' /C calc'!A0")).toBe(`"'x;=cmd|' /C calc'!A0"`);
    expect(csvCell("x, @SUM(A1)")).toBe(`"'x, @SUM(A1)"`);
    expect(csvCell("a;+1")).toBe(`"'a;+1"`);
    expect(csvCell("a;-1")).toBe(`"'a;-1"`);
    // A separator alone is quoted, so no locale splits the cell; nothing else changes.
    expect(csvCell("Deck; engine room")).toBe(`"Deck; engine room"`);
    expect(csvCell("valve-12 = ok")).toBe("valve-12 = ok");
    expect(parse(`${csvCell("x;=cmd|' /C calc'!A0")}\r\n`, { delimiter: ";" })).toEqual([["'x;=cmd|' /C calc'!A0"]]);
  });
});

describe("MOC list CSV", () => {
  it("exports the rows the page's filters select, with names, ISO dates and an inert formula", async () => {
    const cast = await makeCast();
    const marker = `csvmark${Date.now()}`;
    const evil = `=HYPERLINK("http://evil.example/${marker}","click")`;
    const target = await mocAt("b", cast);
    // The description carries the formula and the marker the search finds.
    await getDb().execute(sql`update moc_forms set data = jsonb_set(data, '{description-of-change,value}',
      to_jsonb(${`<p>${evil}</p>`}::text)) where moc_id = ${target._id} and kind = 'originator'`);
    await mocAt("e", cast); // not matched by the search

    const res = await csvOf(getAllMoc, "/api/getAllMoc", cast.originator, { q: marker });
    const rows = rowsOf(res.text);
    expect(rows[0]).toEqual([
      "Serial",
      "Title",
      "Vessel",
      "Status",
      "Department",
      "Description",
      "Originator",
      "Waiting on",
      "Target date",
      "Raised",
      "Last changed",
      // docs/decisions/037-risk-ranking-and-approvals.md (an addition, last)
      "Risk",
      // docs/decisions/057-record-links-and-references.md (an addition, last)
      "References",
    ]);
    expect(rows).toHaveLength(2);
    const [serial, title, vessel, status, , description, originator, owner, , raised, , risk, references] = rows[1]!;
    expect(risk).toBe("Not ranked");
    expect(references).toBe("");
    expect(serial).toBe(target.serial_num);
    // A MOC raised without a title or scope (an /api client of the original contract).
    expect(title).toBe("");
    expect(vessel).toBe("Not recorded");
    expect(status).toBe("Implementer assessment");
    expect(description).toBe(`'${evil}`);
    expect(originator).toBe(cast.originator.name);
    expect(owner).toContain(cast.implementer.name);
    expect(raised).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    // The same with Accept: text/csv, and a status filter that excludes it.
    const accepted = await csvOf(getAllMoc, "/api/getAllMoc", cast.originator, { q: marker }, true);
    expect(rowsOf(accepted.text)).toEqual(rows);
    expect(
      rowsOf((await csvOf(getAllMoc, "/api/getAllMoc", cast.originator, { q: marker, status: "e" })).text),
    ).toHaveLength(1);
  });

  it("exports only the MOCs the caller may see", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const outsider = await makeUser({ department: "operations" });
    const rows = rowsOf((await csvOf(getAllMoc, "/api/getAllMoc", outsider, { q: moc.serial_num })).text);
    expect(rows.slice(1).map((r) => r[0])).not.toContain(moc.serial_num);
  });

  it("keeps the JSON answer as it was without format=csv", async () => {
    const cast = await makeCast();
    const res = await call(getAllMoc, { path: "/api/getAllMoc", token: await tokenFor(cast.originator as never) });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
  });
});

describe("PCR list CSV", () => {
  it("honours the status and search filters", async () => {
    const originator = await makeUser();
    const marker = `pcrmark${Date.now()}`;
    const pcr = await createPcrOk(originator, {
      form: { "suggestion-details": `<p>${marker} +cmd|' /C calc'!A0</p>` },
    });
    const rows = rowsOf((await csvOf(allPcr, "/api/allPcr", originator, { q: marker, status: "pending" })).text);
    expect(rows).toHaveLength(2);
    expect(rows[1]![0]).toBe(pcr.serial_num);
    expect(rows[1]![1]).toBe("Collecting signatures");
    expect(rows[1]![4]).toBe(originator.name);
    expect(
      rowsOf((await csvOf(allPcr, "/api/allPcr", originator, { q: marker, status: "finished" })).text),
    ).toHaveLength(1);
  });
});

describe("archive CSV", () => {
  it("exports both archive lists with their filters", async () => {
    const admin = await makeAdmin();
    const token = await tokenFor(admin);
    const serial = `${Date.now() % 100000}-2013`;
    for (const [route, path, own] of [
      [oldMoc, "/api/oldMoc", { description: "Pump", department: "engineering" }],
      [oldPcr, "/api/oldPcr", { procedure: "Deck manual" }],
    ] as const) {
      const created = await call(route, {
        method: "POST",
        path,
        token,
        body: {
          serial_num: serial,
          title: "@SUM(A1:A2)",
          ...own,
          originator_name: "Jan de Vries",
          date_raised: "2013-03-02",
          date_closed: null,
          status: "open",
          attachments: [],
          notes: "",
        },
      });
      expect(created.status, created.text).toBe(200);
      const rows = rowsOf((await csvOf(route as never, path, admin, { q: serial, year: "2013", status: "open" })).text);
      expect(rows).toHaveLength(2);
      expect(rows[1]![0]).toBe(serial);
      expect(rows[1]![1]).toBe("'@SUM(A1:A2)");
      expect(rows[1]).toContain("2013-03-02");
      expect(rowsOf((await csvOf(route as never, path, admin, { q: serial, status: "closed" })).text)).toHaveLength(1);
    }
  });
});
