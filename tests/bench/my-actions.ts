/**
 * `npm run bench -- --only my-actions`: the dashboard of a person who owns 200 open plan items on
 * 100 of the seeded MOCs (docs/decisions/038-actions-as-tasks.md), beside the same person's
 * dashboard owning none of them (today's dashboard: "My actions" finds nothing), server time
 * including rendering, one request at a time; and the "all of my actions" view that renders all 200.
 * The My actions statement alone is timed too, with whether it reads the owner indexes.
 */
import { performance } from "node:perf_hooks";
import type postgres from "postgres";

export type MyActionsRow = { label: string; p50: number; max: number; kb: number };
export type MyActionsResult = { rows: MyActionsRow[]; mocs: number; items: number; sqlMs: number; plan: string };

/** 200 items: two on each of 100 open MOCs, due from 10 days ago to 30 days on. */
export const OWNED_ITEMS = 200;
const RUNS = 20;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function timePage(url: string, cookie: string): Promise<MyActionsRow & { times: number[] }> {
  const get = async () => {
    const t = performance.now();
    const res = await fetch(url, { headers: { Cookie: cookie } });
    const body = await res.text();
    if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 200)}`);
    return { ms: performance.now() - t, bytes: Buffer.byteLength(body) };
  };
  for (let i = 0; i < 5; i++) await get(); // warm-up
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const got = await get();
    times.push(got.ms);
    bytes = got.bytes;
  }
  return { label: url, p50: median(times), max: Math.max(...times), kb: bytes / 1024, times };
}

/** Gives `email` 200 items on open MOCs (two each, appended to the MOCs' action plans). */
async function assignItems(sql: postgres.Sql, email: string): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    with who as (select id from users where email = ${email}),
    picked as (
      select m.id, row_number() over (order by m.serial_year, m.serial_count) as k
      from mocs m
      where not m.is_deleted and not m.completed and m.status in ('b', 'c', 'd', 'e', 'f')
      order by m.serial_year, m.serial_count
      limit ${OWNED_ITEMS / 2}
    ),
    changed as (
      update mocs m set action = jsonb_build_object('items', coalesce(m.action->'items', '[]'::jsonb) ||
        jsonb_build_array(
          jsonb_build_object('_id', gen_random_uuid(), 'description', 'Replace the gasket set on pump ' || p.k,
            'owner', (select id from who), 'due', (current_date + (p.k % 40 - 10)::int)::text, 'done', false),
          jsonb_build_object('_id', gen_random_uuid(), 'description', 'Brief the engine crew on pump ' || p.k,
            'owner', (select id from who), 'due', (current_date + (p.k % 40)::int)::text, 'done', false)))
      from picked p where m.id = p.id
      returning m.id
    ),
    joined as (
      insert into moc_users (moc_id, user_id) select c.id, (select id from who) from changed c on conflict do nothing
    )
    select count(*)::int as n from changed`;
  return rows[0]!.n;
}

/** Nobody: the items' owner while the person "owns none" (their MOCs and everything else unchanged). */
const NOBODY = "00000000-0000-0000-0000-000000000000";
const ROUNDS = 3;

export async function myActionsBench(
  base: string,
  sql: postgres.Sql,
  person: { email: string; cookie: string },
): Promise<MyActionsResult> {
  const mocs = await assignItems(sql, person.email);
  const [{ id }] = (await sql`select id from users where email = ${person.email}`) as unknown as [{ id: string }];
  // The same person on the same MOCs, owning the 200 items or not: the difference is My actions
  // alone. Rounds alternate the two (this machine's speed drifts between runs), each after its
  // own warm-up, and each row reports the median over the rounds' runs.
  const owners = async (from: string, to: string) => {
    await sql`update mocs set action = replace(action::text, ${from}, ${to})::jsonb
      where (action->'items') @> jsonb_build_array(jsonb_build_object('owner', ${from}::text))`;
    await sql`analyze mocs`;
  };
  const times = { none: [] as number[], mine: [] as number[], all: [] as number[] };
  const kb = { none: 0, mine: 0, all: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    await owners(id, NOBODY);
    const none = await timePage(`${base}/`, person.cookie);
    await owners(NOBODY, id);
    const mine = await timePage(`${base}/`, person.cookie);
    const all = await timePage(`${base}/?actions=all`, person.cookie);
    times.none.push(...none.times);
    times.mine.push(...mine.times);
    times.all.push(...all.times);
    kb.none = none.kb;
    kb.mine = mine.kb;
    kb.all = all.kb;
  }
  const row = (key: keyof typeof times, label: string): MyActionsRow => ({
    label,
    p50: median(times[key]),
    max: Math.max(...times[key]),
    kb: kb[key],
  });
  const rows = [
    row("none", "GET / (dashboard), the person owning none of the items (today's dashboard: My actions empty)"),
    row("mine", `GET / (dashboard), the same person owning ${OWNED_ITEMS} items (the 20 due soonest shown)`),
    row("all", `GET /?actions=all (dashboard with all ${OWNED_ITEMS} of My actions)`),
  ];

  const statement = (column: string) => `
    select m.id, e.item from mocs m cross join lateral jsonb_array_elements(m.${column}->'items') e(item)
    where not m.is_deleted and not m.completed and m.status <> 'decline'
      and (m.${column}->'items') @> jsonb_build_array(jsonb_build_object('owner', '${id}'::text))
      and e.item->>'owner' = '${id}'`;
  const query = `${statement("action")} union all ${statement("manual_plan")}`;
  const plan = ((await sql.unsafe(`explain ${query}`)) as { "QUERY PLAN": string }[])
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  const sqlTimes: number[] = [];
  let items = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    items = (await sql.unsafe(query)).length;
    sqlTimes.push(performance.now() - t);
  }
  return {
    rows,
    mocs,
    items,
    sqlMs: median(sqlTimes),
    plan: /Bitmap Index Scan on mocs_action_owner_idx/.test(plan) ? "owner indexes" : `no owner index:\n${plan}`,
  };
}
