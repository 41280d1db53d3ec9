/**
 * CSV import into the legacy archive: every row checked before anything is saved, rejected rows
 * reported with their line numbers and reasons, duplicates within the file and against the
 * archive, CSV as spreadsheets write it (quoted commas and line breaks, a byte-order mark, CRLF,
 * semicolons), malformed files, limits, and the import page's two posts (check, then confirm).
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as importPage from "~/routes/archive+/$kind.import";
import {
  checkArchiveImport,
  decodeCsvFile,
  importArchiveCsv,
  type ImportCheck,
} from "~/models/archive/archive-import.server";
import { createArchiveRecord, insertArchiveRecords } from "~/models/archive/archive.server";
import { withDefaults, type ArchiveKind } from "~/models/archive/archive.schema";
import type { PublicUser } from "~/models/people/user.server";
import { DomainError } from "~/utils/errors";
import { getDb } from "~/utils/db.server";
import { BASE, sessionCookieHeader } from "../helpers/request";
import { makeAdmin, makeUser } from "../helpers/factories";
import { tokenOf } from "../helpers/pcr";

const KINDS = [
  {
    kind: "moc" as ArchiveKind,
    segment: "mocs",
    table: "legacy_mocs",
    label: "legacy MOC",
    header: "serial_num,title,description,department,originator_name,date_raised,date_closed,status,attachments,notes",
    own: (text: string) => `${text},engineering`,
    otherColumn: "procedure",
  },
  {
    kind: "pcr" as ArchiveKind,
    segment: "pcrs",
    table: "legacy_pcrs",
    label: "legacy PCR",
    header: "serial_num,title,procedure,originator_name,date_raised,date_closed,status,attachments,notes",
    own: (text: string) => text,
    otherColumn: "department",
  },
];
type KindCase = (typeof KINDS)[number];

let hseq: PublicUser;
let admin: PublicUser;
let standard: PublicUser;

beforeAll(async () => {
  [hseq, admin, standard] = await Promise.all([
    makeUser({ name: "Hanna Hseq", department: "hseq" }),
    makeAdmin({ name: "Ada Admin" }),
    makeUser({ name: "Sam Standard", department: "operations", access: "full" }),
  ]);
});

const tagged = () => randomBytes(3).toString("hex");

/** A data line with the kind's columns: serial, title, text, originator, raised, closed, status, attachments, notes. */
function line(k: KindCase, serial: string, fields: Partial<Record<string, string>> = {}): string {
  const f = {
    title: "Replace the bilge pump",
    text: "Pump room - frame 42",
    originator: "Jan de Vries",
    raised: "2014-03-02",
    closed: "2014-05-20",
    status: "closed",
    attachments: "https://files.example.com/a.pdf;https://files.example.com/b.pdf",
    notes: "From the 2014 binder",
    ...fields,
  };
  return [serial, f.title, k.own(f.text!), f.originator, f.raised, f.closed, f.status, f.attachments, f.notes].join(
    ",",
  );
}

const csv = (k: KindCase, ...lines: string[]) => [k.header, ...lines].join("\n") + "\n";

async function rows(k: KindCase) {
  return [...(await getDb().execute(sql.raw(`select * from ${k.table} order by id`)))];
}

async function unchanged<T>(k: KindCase, run: () => Promise<T>): Promise<T> {
  const before = await rows(k);
  const result = await run();
  expect(await rows(k)).toEqual(before);
  return result;
}

const rejectedLines = (check: ImportCheck) => check.rejected.map((r) => r.line);
const problemsAt = (check: ImportCheck, at: number) => check.rejected.find((r) => r.line === at)?.problems ?? [];

describe.each(KINDS)("import of $label records", (k) => {
  it("a good file is checked without saving, then imported whole", async () => {
    const t = tagged();
    const text = csv(
      k,
      line(k, `1-2014-${t}`),
      line(k, `2-2014-${t}`, { closed: "", status: "", attachments: "" }),
      line(k, `3-2014-${t}`, {
        status: "",
        attachments: "https://files.example.com/c.pdf | https://files.example.com/d.pdf",
      }),
    );
    const check = await unchanged(k, () => checkArchiveImport(hseq, k.kind, text));
    expect(check.fileErrors).toEqual([]);
    expect(check.rejected).toEqual([]);
    expect(check.rowCount).toBe(3);
    expect(check.valid.map((v) => v.line)).toEqual([2, 3, 4]);

    const result = await importArchiveCsv(hseq, k.kind, text);
    expect(result).toEqual({ saved: true, count: 3 });
    const saved = await getDb().execute<Record<string, unknown>>(
      sql.raw(`select * from ${k.table} where serial_num like '%-2014-${t}' order by serial_num`),
    );
    expect(saved.map((r) => [r.serial_num, r.status, r.date_closed, r.attachments, r.created_by])).toEqual([
      [
        `1-2014-${t}`,
        "closed",
        "2014-05-20",
        ["https://files.example.com/a.pdf", "https://files.example.com/b.pdf"],
        hseq._id,
      ],
      [`2-2014-${t}`, "open", null, [], hseq._id],
      [
        `3-2014-${t}`,
        "closed",
        "2014-05-20",
        ["https://files.example.com/c.pdf", "https://files.example.com/d.pdf"],
        hseq._id,
      ],
    ]);
    expect(saved[0]!.title).toBe("Replace the bilge pump");
    expect(saved[0]![k.kind === "moc" ? "description" : "procedure"]).toBe("Pump room - frame 42");
  });

  it("a file with bad rows imports nothing and reports every bad row with its line and reason", async () => {
    const t = tagged();
    const text = csv(
      k,
      line(k, `1-2015-${t}`),
      line(k, "", { title: "" }),
      line(k, `3-2015-${t}`, { raised: "2015-02-30" }),
      line(k, `4-2015-${t}`, { raised: "2015-06-01", closed: "2015-05-01" }),
      line(k, `5-2015-${t}`, { closed: "", status: "closed" }),
      line(k, `6-2015-${t}`, { status: "open" }),
      line(k, `7-2015-${t}`, { status: "archived" }),
      line(k, `8-2015-${t}`, { attachments: "https://ok.example/a.pdf;javascript:alert(1)" }),
      line(k, `9-2015-${t}`, { raised: "15/03/2015", closed: "", status: "" }),
      line(k, `10-2015-${t}`),
    );
    const check = await unchanged(k, () => checkArchiveImport(admin, k.kind, text));
    expect(check.rowCount).toBe(10);
    expect(check.valid.map((v) => v.line)).toEqual([2, 11]);
    expect(rejectedLines(check)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(problemsAt(check, 3)).toEqual(["serial_num: Enter the serial number", "title: Enter the title"]);
    expect(check.rejected[0]!.serial_num).toBeNull();
    expect(problemsAt(check, 4)).toEqual(["date_raised: The date raised must be a real date written YYYY-MM-DD"]);
    expect(problemsAt(check, 5)).toEqual(["date_closed: The closing date cannot be before the date raised"]);
    expect(problemsAt(check, 6)).toEqual(["date_closed: A closed record needs its closing date"]);
    expect(problemsAt(check, 7)[0]).toMatch(/^status: An open record has no closing date/);
    expect(problemsAt(check, 8)).toEqual(["status: The status must be open or closed"]);
    expect(problemsAt(check, 9)).toEqual(["attachments (link 2): An attachment must be an http:// or https:// link"]);
    expect(problemsAt(check, 10)[0]).toMatch(/^date_raised: /);
    expect(check.rejected.find((r) => r.line === 4)!.serial_num).toBe(`3-2015-${t}`);

    const result = await unchanged(k, () => importArchiveCsv(admin, k.kind, text));
    expect(result.saved).toBe(false);
  });

  it("a serial number repeated in the file rejects every line that has it", async () => {
    const t = tagged();
    const text = csv(
      k,
      line(k, `1-2016-${t}`),
      line(k, `2-2016-${t}`),
      line(k, `1-2016-${t}`),
      line(k, ` 1-2016-${t} `),
    );
    const check = await unchanged(k, () => checkArchiveImport(hseq, k.kind, text));
    expect(rejectedLines(check)).toEqual([2, 4, 5]);
    for (const at of [2, 4, 5]) {
      expect(problemsAt(check, at)).toEqual([
        `serial_num: 1-2016-${t} appears more than once in the file (lines 2, 4, 5)`,
      ]);
    }
    expect((await unchanged(k, () => importArchiveCsv(hseq, k.kind, text))).saved).toBe(false);
  });

  it("a serial number already in the archive is rejected", async () => {
    const t = tagged();
    await createArchiveRecord(
      admin,
      k.kind,
      withDefaults(k.kind, {
        serial_num: `7-2013-${t}`,
        title: "Already here",
        originator_name: "Someone",
        date_raised: "2013-01-01",
      }),
    );
    const text = csv(k, line(k, `6-2013-${t}`), line(k, `7-2013-${t}`));
    const check = await unchanged(k, () => checkArchiveImport(hseq, k.kind, text));
    expect(rejectedLines(check)).toEqual([3]);
    expect(problemsAt(check, 3)).toEqual([
      `serial_num: a ${k.label} with serial number 7-2013-${t} is already in the archive`,
    ]);
  });

  it("quoted fields keep commas, quotes and line breaks; later lines keep their numbers", async () => {
    const t = tagged();
    const text = csv(
      k,
      line(k, `1-2012-${t}`, {
        title: '"Pumps, valves and ""spares"""',
        notes: '"First line\nsecond line\nthird line"',
      }),
      line(k, `2-2012-${t}`, { raised: "not a date" }),
      line(k, `3-2012-${t}`, { text: '"Multi\nline"' }),
    );
    const check = await unchanged(k, () => checkArchiveImport(hseq, k.kind, text));
    // Line 2 spans lines 2-4; the bad row is on line 5; the next one starts on line 6.
    expect(rejectedLines(check)).toEqual([5]);
    expect(check.valid.map((v) => v.line)).toEqual([2, 6]);
    expect(check.valid[0]!.record.title).toBe('Pumps, valves and "spares"');
    expect(check.valid[0]!.record.notes).toBe("First line\nsecond line\nthird line");
    expect(await importArchiveCsv(hseq, k.kind, text)).toMatchObject({ saved: false });
  });

  it("a byte-order mark and CRLF line ends are read as if they were not there", async () => {
    const t = tagged();
    const text =
      `\uFEFF${csv(k, line(k, `1-2011-${t}`, { notes: '"a\r\nb"' }), line(k, `2-2011-${t}`), line(k, "", { title: "" }))}`.replace(
        /(?<!\r)\n/g,
        "\r\n",
      );
    const bytes = new TextEncoder().encode(text);
    const decoded = decodeCsvFile(bytes);
    for (const input of [text, decoded]) {
      const check = await checkArchiveImport(hseq, k.kind, input);
      expect(check.fileErrors).toEqual([]);
      expect(check.valid.map((v) => v.line)).toEqual([2, 4]);
      expect(check.valid[0]!.record.notes).toBe("a\nb");
      expect(check.valid[0]!.record.serial_num).toBe(`1-2011-${t}`);
      expect(rejectedLines(check)).toEqual([5]);
    }
  });

  it("semicolon-separated files (spreadsheets in comma-decimal locales) are read too", async () => {
    const t = tagged();
    const header = k.header.replaceAll(",", ";");
    const row = line(k, `1-2010-${t}`, { attachments: "https://files.example.com/x.pdf" }).replaceAll(",", ";");
    const check = await checkArchiveImport(hseq, k.kind, `${header}\n${row}\n`);
    expect(check.fileErrors).toEqual([]);
    expect(check.rejected).toEqual([]);
    expect(check.valid[0]!.record.attachments).toEqual(["https://files.example.com/x.pdf"]);
  });

  it("headers are matched loosely, columns in any order, optional ones left out; blank lines skipped", async () => {
    const t = tagged();
    const text = `Date Raised, Serial-Num ,TITLE,originator_name\n\n2014-01-01,1-2009-${t},A title,Ann\n  ,  ,,\n2014-02-01,2-2009-${t},B title,Bob\n`;
    const check = await checkArchiveImport(hseq, k.kind, text);
    expect(check.fileErrors).toEqual([]);
    expect(check.valid.map((v) => [v.line, v.record.serial_num, v.record.status])).toEqual([
      [3, `1-2009-${t}`, "open"],
      [5, `2-2009-${t}`, "open"],
    ]);
  });

  it("a line with the wrong number of fields is rejected", async () => {
    const t = tagged();
    const text = csv(k, line(k, `1-2008-${t}`), `2-2008-${t},Only a title`, `${line(k, `3-2008-${t}`)},extra`);
    const check = await checkArchiveImport(hseq, k.kind, text);
    const columns = k.header.split(",").length;
    expect(rejectedLines(check)).toEqual([3, 4]);
    expect(problemsAt(check, 3)[0]).toBe(`The line has 2 fields; the header row has ${columns}`);
    expect(problemsAt(check, 4)[0]).toBe(`The line has ${columns + 1} fields; the header row has ${columns}`);
  });

  it.each([
    ["an empty file", "", "The file is empty"],
    ["a file of blank lines", "\n  \n\r\n", "The file is empty"],
    [
      "a header and no records",
      `${"serial_num,title,originator_name,date_raised"}\n`,
      "The file has a header row but no records",
    ],
  ])("%s is refused as a whole", async (_name, text, message) => {
    const check = await unchanged(k, () => checkArchiveImport(hseq, k.kind, text));
    expect(check.fileErrors).toEqual([message]);
    expect(check.rowCount).toBe(0);
    expect((await unchanged(k, () => importArchiveCsv(hseq, k.kind, text))).saved).toBe(false);
  });

  it("a wrong header is refused before any row is read, naming each problem", async () => {
    const unknown = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,originator_name,date_raised,colour\n1-2000,T,A,2000-01-01,red\n`,
    );
    expect(unknown.fileErrors[0]).toBe('Unknown column "colour"');
    expect(unknown.fileErrors.at(-1)).toMatch(/^The header row names the columns: serial_num, title/);
    const other = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,originator_name,date_raised,${k.otherColumn}\n1-2000,T,A,2000-01-01,x\n`,
    );
    expect(other.fileErrors[0]).toMatch(new RegExp(`^Unknown column "${k.otherColumn}" \\(it belongs to legacy`));
    const missing = await checkArchiveImport(hseq, k.kind, `serial,title\n1-2000,T\n`);
    expect(missing.fileErrors).toContain(
      "The header row lacks the required columns serial_num, originator_name, date_raised",
    );
    const twice = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,Title,originator_name,date_raised\n1-2000,T,T,A,2000-01-01\n`,
    );
    expect(twice.fileErrors[0]).toBe("The column title appears twice");
    const unnamed = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,,originator_name,date_raised\n1-2000,T,x,A,2000-01-01\n`,
    );
    expect(unnamed.fileErrors[0]).toBe("Column 3 has values but no name in the header row");
    for (const check of [unknown, other, missing, twice, unnamed]) expect(check.valid).toEqual([]);
  });

  it("an empty unnamed column (a spreadsheet's trailing comma) is ignored", async () => {
    const t = tagged();
    const check = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,originator_name,date_raised,\n1-2007-${t},T,A,2007-01-01,\n`,
    );
    expect(check.fileErrors).toEqual([]);
    expect(check.valid).toHaveLength(1);
  });

  it("malformed CSV is refused with the line it breaks on", async () => {
    const check = await checkArchiveImport(
      hseq,
      k.kind,
      `serial_num,title,originator_name,date_raised\n1-2000,"unclosed,A,2000-01-01\n2-2000,T,A,2000-01-01\n`,
    );
    expect(check.fileErrors).toHaveLength(1);
    expect(check.fileErrors[0]).toMatch(/quoted field is never closed/);
  });

  it("a file that is not UTF-8 is refused", () => {
    const latin1 = Uint8Array.from([0x73, 0x65, 0x72, 0x69, 0x61, 0x6c, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]);
    expect(() => decodeCsvFile(latin1)).toThrow(/not UTF-8/);
  });

  it("limits: more than 5,000 records, or more than 1 MiB, is refused as a whole", async () => {
    const many = csv(k, ...Array.from({ length: 5001 }, (_, i) => `${i}-2000,T,A,2000-01-01`).map((l) => l));
    const text = `serial_num,title,originator_name,date_raised\n${many.split("\n").slice(1).join("\n")}`;
    expect((await checkArchiveImport(hseq, k.kind, text)).fileErrors).toEqual([
      "The file has 5001 records; import at most 5000 at a time",
    ]);
    const big = `serial_num,title,originator_name,date_raised,notes\n1-2000,T,A,2000-01-01,${"n".repeat(1024 * 1024)}\n`;
    expect((await checkArchiveImport(hseq, k.kind, big)).fileErrors).toEqual([
      "The file is larger than 1 MiB: split it into smaller files",
    ]);
  });

  it("readers may not import", async () => {
    await expect(checkArchiveImport(standard, k.kind, csv(k, line(k, "1-2000")))).rejects.toMatchObject({
      status: 403,
    });
    await expect(importArchiveCsv(standard, k.kind, csv(k, line(k, "1-2000")))).rejects.toMatchObject({ status: 403 });
  });

  it("the confirmation checks again: a serial added since the check saves nothing", async () => {
    const t = tagged();
    const text = csv(k, line(k, `1-2006-${t}`), line(k, `2-2006-${t}`));
    expect((await checkArchiveImport(hseq, k.kind, text)).rejected).toEqual([]);
    await createArchiveRecord(
      admin,
      k.kind,
      withDefaults(k.kind, {
        serial_num: `2-2006-${t}`,
        title: "Added meanwhile",
        originator_name: "Someone",
        date_raised: "2006-01-01",
      }),
    );
    const result = await unchanged(k, () => importArchiveCsv(hseq, k.kind, text));
    expect(result.saved).toBe(false);
    if (!result.saved) expect(rejectedLines(result.check)).toEqual([3]);
  });

  it("saving is one transaction: a duplicate at the end leaves none of the others", async () => {
    const t = tagged();
    const record = (serial: string) =>
      withDefaults(k.kind, { serial_num: serial, title: "T", originator_name: "A", date_raised: "2005-01-01" });
    await insertArchiveRecords(admin, k.kind, [record(`9-2005-${t}`)]);
    const batch = Array.from({ length: 600 }, (_, i) => record(`${i}-2005-${t}-b`));
    const error = await unchanged(k, () =>
      insertArchiveRecords(admin, k.kind, [...batch, record(`9-2005-${t}`)]).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(409);
    expect((error as DomainError).message).toContain(`9-2005-${t}`);
  });
});

// ---------------------------------------------------------------------------------------------
// The import page: two multipart posts

type PageResult = { status: number; location: string | null; body: unknown; setCookie: string | null };

async function postImport(
  who: PublicUser,
  segment: string,
  fields: Record<string, string | File>,
): Promise<PageResult> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const request = new Request(new URL(`/archive/${segment}/import`, BASE), {
    method: "POST",
    headers: { Cookie: await sessionCookieHeader(await tokenOf(who)) },
    body: form,
  });
  let result: unknown;
  try {
    result = await importPage.action({ request, params: { kind: segment }, context: {} });
  } catch (thrown) {
    result = thrown;
  }
  if (result instanceof Response) {
    return {
      status: result.status,
      location: result.headers.get("Location"),
      body: null,
      setCookie: result.headers.get("Set-Cookie"),
    };
  }
  const { data, init } = result as { data: unknown; init: ResponseInit | null };
  return { status: init?.status ?? 200, location: null, body: data, setCookie: null };
}

type Report = {
  fileName: string;
  fileErrors: string[];
  rowCount: number;
  rejectedCount: number;
  rejected: { line: number; problems: string[] }[];
  validCount: number;
  csv: string | null;
};
const reportOf = (r: PageResult) => (r.body as { report: Report }).report;

describe("the import page", () => {
  const k = KINDS[0]!;
  const file = (text: string, name = "binder-2014.csv") => new File([text], name, { type: "text/csv" });

  it("checks an uploaded file, then imports it on confirmation", async () => {
    const t = tagged();
    const text = csv(k, line(k, `1-2004-${t}`), line(k, `2-2004-${t}`));
    const checked = await unchanged(k, () => postImport(hseq, "mocs", { intent: "check", file: file(text) }));
    expect(checked.status).toBe(200);
    const report = reportOf(checked);
    expect(report).toMatchObject({ fileName: "binder-2014.csv", rowCount: 2, validCount: 2, rejectedCount: 0 });
    expect(Buffer.from(report.csv!, "base64").toString("utf8")).toBe(text);

    const confirmed = await postImport(hseq, "mocs", { intent: "import", csv: report.csv!, fileName: report.fileName });
    expect(confirmed.status).toBe(302);
    expect(confirmed.location).toBe("/archive/mocs");
    expect(confirmed.setCookie).toMatch(/^flash=/);
    const saved = await getDb().execute(
      sql.raw(`select serial_num from legacy_mocs where serial_num like '%-2004-${t}'`),
    );
    expect(saved).toHaveLength(2);
  });

  it("a file with bad rows gets the report and no confirmation", async () => {
    const t = tagged();
    const text = csv(k, line(k, `1-2003-${t}`), line(k, `2-2003-${t}`, { raised: "2003-13-01" }));
    const checked = await unchanged(k, () => postImport(admin, "mocs", { intent: "check", file: file(text) }));
    expect(checked.status).toBe(400);
    const report = reportOf(checked);
    expect(report.csv).toBeNull();
    expect(report.rejected).toEqual([
      {
        line: 3,
        serial_num: `2-2003-${t}`,
        problems: ["date_raised: The date raised must be a real date written YYYY-MM-DD"],
      },
    ]);
  });

  it("a confirmation whose file was changed is checked again and saves nothing", async () => {
    const t = tagged();
    const tampered = Buffer.from(csv(k, line(k, `1-2002-${t}`), line(k, "", { title: "" }))).toString("base64");
    const result = await unchanged(k, () =>
      postImport(hseq, "mocs", { intent: "import", csv: tampered, fileName: "x.csv" }),
    );
    expect(result.status).toBe(400);
    expect(reportOf(result).rejected.map((r) => r.line)).toEqual([3]);
  });

  it("no file, an empty file, a file that is not UTF-8: a message, nothing saved", async () => {
    const none = await postImport(hseq, "mocs", { intent: "check" });
    expect(reportOf(none).fileErrors).toEqual(["Choose a CSV file to check"]);
    const empty = await postImport(hseq, "mocs", { intent: "check", file: file("") });
    expect(reportOf(empty).fileErrors).toEqual(["Choose a CSV file to check"]);
    const latin1 = new File([Uint8Array.from([0x61, 0x0a, 0xe9, 0x0a])], "latin1.csv");
    const notUtf8 = await postImport(hseq, "mocs", { intent: "check", file: latin1 });
    expect(notUtf8.status).toBe(400);
    expect(reportOf(notUtf8).fileErrors[0]).toMatch(/not UTF-8/);
  });

  it("readers get 403; an unknown archive is 404", async () => {
    const refused = await unchanged(k, () =>
      postImport(standard, "mocs", { intent: "check", file: file(csv(k, line(k, "1-2001"))) }),
    );
    expect(refused.status).toBe(403);
    const nowhere = await postImport(hseq, "reviews", { intent: "check", file: file("x") });
    expect(nowhere.status).toBe(404);
  });
});
