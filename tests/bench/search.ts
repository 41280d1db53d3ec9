/**
 * `npm run bench -- --only search`: GET /api/search over 10,000 MOCs, 2,000 PCRs and 5,000 archive
 * records (docs/decisions/039-search.md). The MOCs and the first 1,000 PCRs are the ones every
 * bench seeds (tests/bench/data.ts); this module adds 1,000 more PCRs and the archive records, then
 * asks a mix of searches in turn, one at a time, as an admin (reads everything) and as a standard
 * user (the lists' authorization narrows it), and reports p50 and p95 of each kind of query and of
 * all of them together.
 */
import { performance } from "node:perf_hooks";
import type postgres from "postgres";

export const SEARCH_EXTRA_PCRS = 1_000;
export const SEARCH_ARCHIVE_RECORDS = 5_000;
/** Requests per query per user, after one unmeasured round. */
const RUNS = 15;

const WORDS = [
  "mooring winch brake",
  "ballast pump controller",
  "lifeboat davit",
  "fire damper",
  "oily water separator",
  "gangway watch",
  "emergency generator",
  "steering gear alarm",
  "cargo hold ventilation",
  "fuel purifier",
];

/**
 * 1,000 PCRs (serials n-2019, beside the seeded ones of this and last year) and 5,000 paper records,
 * half MOCs and half PCRs, their titles and texts drawn from WORDS; every insert goes through the
 * search triggers as the app's would.
 */
export async function insertSearchRecords(sql: postgres.Sql): Promise<void> {
  const words = `array[${WORDS.map((w) => `'${w}'`).join(", ")}]`;
  await sql.begin(async (tx) => {
    await tx.unsafe(`
      create temp table bs on commit drop as
      select i, gen_random_uuid() as id, gen_random_uuid() as chat_id,
        (select array_agg(id order by email) from users where email like 'bench-%@bench.test') as ids
      from generate_series(1, ${SEARCH_EXTRA_PCRS}) i`);
    await tx`insert into chat_rooms (id, created_at) select chat_id, now() from bs`;
    await tx.unsafe(`
      insert into pcrs (id, serial_num, serial_year, serial_count, status, originator_id, form, signatures,
                        affected_parties, party_ids, chat_id, created_at, updated_at)
      select id, i || '-2019', 2019, i, 'pending', ids[12 + i % 40],
        jsonb_build_object('originator', '', 'new-suggestion', false, 'procedure-change', true, 'safety-critical', false,
          'manual-procedure', '<p>Deck manual ' || (i % 12) || '</p>',
          'suggestion-details', '<p>Check the <strong>' || (${words})[1 + i % 10] || '</strong> before departure (item ' || i || ')</p>',
          'reason-for-change', '<p>Found worn during the ' || (${words})[1 + (i * 7) % 10] || ' survey</p>'),
        (select jsonb_agg(jsonb_build_object('Name', role, 'state', 'unsigned', 'signature', null, 'signatureDate', null,
            'Comments', '', 'signedBy', null, 'commentedBy', null) order by k)
         from unnest(array['Change Originator', 'VP Fleet Management', 'HSEQ Coordinator', 'Group HSEQ Manager',
                           'Director HSEQ', 'President']) with ordinality r(role, k)),
        '[]'::jsonb, '{}'::uuid[], chat_id, now() - i * interval '1 hour', now() - i * interval '1 hour'
      from bs`);
    for (const [table, own, value] of [
      [
        "legacy_mocs",
        "description, department",
        `'Paper-era change: ' || (${words})[1 + (i * 3) % 10] || ' replaced', 'Engineering'`,
      ],
      ["legacy_pcrs", "procedure", `'Procedure ' || (i % 40) || ': ' || (${words})[1 + (i * 3) % 10]`],
    ] as const) {
      await tx.unsafe(`
        insert into ${table} (serial_num, title, originator_name, date_raised, status, notes, ${own})
        select 'MOC-' || lpad(i::text, 4, '0') || '/' || (1990 + i % 20), initcap((${words})[1 + i % 10]) || ' ' || i,
          (array['Jan de Vries', 'Ines Moreau', 'Ole Berg', 'Ana Silva', 'Tomas Novak'])[1 + i % 5],
          make_date(1990 + i % 20, 1 + i % 12, 1), case when i % 3 = 0 then 'open' else 'closed' end,
          'Scanned from the binder', ${value}
        from generate_series(1, ${SEARCH_ARCHIVE_RECORDS / 2}) i`);
    }
  });
  await sql`vacuum (analyze)`;
}

export type SearchBenchRow = { scenario: string; p50: number; p95: number; runs: number };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** The queries, by kind: each form of a serial, a name, common and rare words, a prefix. */
async function queries(sql: postgres.Sql): Promise<[kind: string, q: string][]> {
  const [moc] = await sql<
    { serial: string }[]
  >`select serial_num as serial from mocs order by serial_count desc limit 1`;
  const [n, y] = moc!.serial.split("-");
  return [
    ["serial", `${n}-${y}`],
    ["serial", `MOC ${n}-${y}`],
    ["serial", `${n}/${y}`],
    ["serial", `MOC-${n}-${y}`],
    ["serial", "PCR 500/2019"],
    ["name", "Bench User 17"],
    ["name", "Ines Moreau"],
    ["words, every MOC matches", "bunkering checklist"],
    ["words", "mooring winch"],
    ["words", "oily water separator"],
    ["prefix", "ventil"],
    ["nothing found", "zzqx unmatched"],
  ];
}

/** Sequential GET /api/search for each query and user; p50/p95 per kind of query and overall. */
export async function searchBench(
  base: string,
  sql: postgres.Sql,
  users: { label: string; token: string }[],
): Promise<SearchBenchRow[]> {
  const mix = await queries(sql);
  const rows: SearchBenchRow[] = [];
  for (const user of users) {
    const byKind = new Map<string, number[]>();
    const all: number[] = [];
    for (let round = 0; round <= RUNS; round++) {
      for (const [kind, q] of mix) {
        const started = performance.now();
        const res = await fetch(`${base}/api/search?q=${encodeURIComponent(q)}`, {
          headers: { Authorization: `Bearer ${user.token}` },
        });
        const body = await res.text();
        const ms = performance.now() - started;
        if (!res.ok) throw new Error(`GET /api/search?q=${q}: ${res.status} ${body.slice(0, 300)}`);
        if (round === 0) continue;
        all.push(ms);
        byKind.set(kind, [...(byKind.get(kind) ?? []), ms]);
      }
    }
    for (const [kind, times] of byKind) {
      rows.push({
        scenario: `GET /api/search, ${user.label}: ${kind}`,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        runs: times.length,
      });
    }
    rows.push({
      scenario: `GET /api/search, ${user.label}: all ${mix.length} queries`,
      p50: percentile(all, 50),
      p95: percentile(all, 95),
      runs: all.length,
    });
  }
  return rows;
}
