/**
 * Bulk data for the benchmark, written with set-based SQL (seconds for 10,000 MOCs): users, MOCs
 * in a realistic mix of states with their chat rooms, form documents shaped like the ones the
 * workflow writes, all_users rows and 3-6 audit entries each.
 */
import type postgres from "postgres";
import { hashPassword } from "../../app/models/people/user.server";

export const BENCH_PASSWORD = "bench-password";
export const USER_COUNT = 60;
/** users ordered by email: 0 admin, 1-8 HSEQ, 9 the standard user, 10-59 everyone else. */
export const HSEQ_COUNT = 8;
const OTHERS = USER_COUNT - 2 - HSEQ_COUNT;
/**
 * The standard user originates one MOC in this many (10,000 MOCs: 50 of them). Not a multiple of
 * 20, so their MOCs are spread over every state like everyone else's.
 */
export const STANDARD_USER_EVERY = 199;

export type BenchUsers = { admin: string; hseq: string[]; standard: string };

const email = (n: number) => `bench-${String(n).padStart(2, "0")}@bench.test`;

export async function insertUsers(sql: postgres.Sql): Promise<BenchUsers> {
  const hash = await hashPassword(BENCH_PASSWORD);
  await sql`
    insert into users (name, email, password_hash, role, department, access, onboarded)
    select 'Bench User ' || lpad(n::text, 2, '0'),
           'bench-' || lpad(n::text, 2, '0') || '@bench.test',
           ${hash},
           case when n = 0 then 'admin' else 'user' end,
           case when n = 0 then 'engineering'
                when n <= ${HSEQ_COUNT} then 'hseq'
                when n = ${HSEQ_COUNT + 1} then 'engineering'
                else (array['engineering', 'operations', 'fleet'])[1 + n % 3] end,
           case when n = 0 or (n > ${HSEQ_COUNT + 1} and n % 4 = 0) then 'full' else 'standard' end,
           true
    from generate_series(0, ${USER_COUNT - 1}) n`;
  return {
    admin: email(0),
    hseq: Array.from({ length: HSEQ_COUNT }, (_, i) => email(i + 1)),
    standard: email(HSEQ_COUNT + 1),
  };
}

/**
 * Inserts MOCs numbered `from`..`to`. `mix` spreads them over every state (5% drafts, 10% at b,
 * 10% each at c, d, e and f, 35% completed, 5% declined at b, 5% at d, 5% back at b with an
 * open deviation and extension); `hseq-pool` puts them all at c, waiting for the HSEQ review.
 */
export async function insertMocs(
  sql: postgres.Sql,
  options: { from: number; to: number; mode: "mix" | "hseq-pool" },
): Promise<void> {
  // At most 10,000 MOCs per transaction: the audit trail's chain trigger takes an advisory lock per
  // MOC (migration 0010), and 100,000 of them in one transaction overflow the lock table.
  for (let from = options.from; from <= options.to; from += 10_000) {
    await insertMocSlice(sql, { ...options, from, to: Math.min(options.to, from + 9_999) });
  }
  // A database in service has been vacuumed by autovacuum; a freshly loaded one has not. Vacuum
  // it, so the visibility map lets index-only scans skip the heap as they would in production.
  await sql`vacuum (analyze)`;
}

async function insertMocSlice(
  sql: postgres.Sql,
  options: { from: number; to: number; mode: "mix" | "hseq-pool" },
): Promise<void> {
  const pool = options.mode === "hseq-pool";
  await sql.begin(async (tx) => {
    // One row per MOC with everything the inserts below need. `p` is how far the workflow got:
    // 0 draft, 1 Part A submitted, 2 Part B, 3 HSEQ, 4 approval, 5 implementation, 6 verified.
    // Only numbers this module chose are interpolated here.
    await tx.unsafe(`
      create temp table bm on commit drop as
      with people as (
        select (select array_agg(id order by email) from users where email like 'bench-%@bench.test') as ids,
               (select array_agg(name order by email) from users where email like 'bench-%@bench.test') as names
      ), base as (
        select i, case when ${pool} then 3 else i % 20 end as r,
               now() - ((${options.to} - i) * interval '97 minutes') - interval '1 hour' as created_at
        from generate_series(${options.from}::int, ${options.to}::int) i
      ), shaped as (
        select b.*,
          case when r = 0 then 0 when r in (1, 18) then 1 when r in (3, 4) then 2 when r in (5, 6, 19) then 3
               when r in (7, 8) then 4 when r in (2, 9, 10) then 5 else 6 end as p,
          case r when 18 then 'b' when 19 then 'd' end as declined,
          r = 2 as deviation,
          ${HSEQ_COUNT + 2} + (i * 7) % ${OTHERS} as o, ${HSEQ_COUNT + 2} + (i * 13 + 1) % ${OTHERS} as im,
          ${HSEQ_COUNT + 2} + (i * 17 + 3) % ${OTHERS} as ap, 1 + i % ${HSEQ_COUNT} as hs,
          ${HSEQ_COUNT + 2} + (i * 19 + 5) % ${OTHERS} as ve
        from base b
      )
      select s.i, s.p, s.declined, s.deviation, s.created_at,
        gen_random_uuid() as id, gen_random_uuid() as chat_id,
        extract(year from s.created_at at time zone 'UTC')::int as year,
        case when s.declined is not null then 'decline' when s.deviation then 'b'
             else (array['a', 'b', 'c', 'd', 'e', 'f', 'f'])[s.p + 1] end as status,
        s.p = 6 as completed,
        -- The standard user originates one MOC in ${STANDARD_USER_EVERY}.
        case when not ${pool} and s.i % ${STANDARD_USER_EVERY} = 0 then pe.ids[${HSEQ_COUNT + 2}]
             else pe.ids[s.o + 1] end as originator,
        pe.ids[s.im + 1] as implementer, pe.names[s.im + 1] as implementer_name,
        case when s.p >= 2 then pe.ids[s.ap + 1] end as approver, pe.names[s.ap + 1] as approver_name,
        case when s.p >= 2 then pe.ids[s.hs + 1] end as hseq, pe.names[s.hs + 1] as hseq_name,
        case when s.p = 6 and s.i % 2 = 0 then pe.ids[s.ve + 1] end as verifier,
        case when s.p >= 2 then (s.created_at + (30 + s.i % 60) * interval '1 day')::date end as target_date
      from shaped s, people pe`);
    await tx`
      insert into chat_rooms (id, created_at) select chat_id, created_at from bm`;
    await tx`
      insert into mocs (id, serial_num, serial_year, serial_count, status, completed, originator_id, implementer_id,
                        approver_id, hseq_id, verifier_id, target_date, decline, deviations, impact_assessment,
                        action, chat_id, created_at, updated_at)
      select id, n || '-' || year, year, n, status, completed, originator, implementer, approver, hseq, verifier,
        target_date,
        case when declined is not null then jsonb_build_object('stage', declined,
          'reason', 'Not justified at this time: postpone to the next dry-dock',
          'by', case declined when 'b' then implementer else approver end,
          'at', to_char((created_at + interval '4 days') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) end,
        case when deviation then jsonb_build_object('_id', gen_random_uuid(),
          'requestedAt', to_char((created_at + interval '5 days') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'requestedBy', implementer,
          'deviation', jsonb_build_object('requested', true, 'details', '<p>Used the existing gauge, recalibrated</p>',
            'resolved', false, 'approved', null, 'comment', null, 'resolvedBy', null, 'resolvedAt', null),
          'extension', jsonb_build_object('requested', true, 'new_date', (target_date + 30)::text,
            'reason', 'Parts back-ordered', 'resolved', false, 'approved', null, 'comment', null,
            'resolvedBy', null, 'resolvedAt', null)) end,
        case when p >= 4 then '[{"category":"Safety","hazards":["Overflow during topping off","Slips on deck"]},
                               {"category":"Environment","hazards":["Oil spill to sea"]}]'::jsonb
             else '[]'::jsonb end,
        case when p >= 4 then jsonb_build_object('items', jsonb_build_array(jsonb_build_object('_id', gen_random_uuid(),
          'description', 'Brief the crews at the next fleet call', 'owner', implementer,
          'due', (created_at + interval '20 days')::date, 'done', p = 6)))
             else '{"items":[]}'::jsonb end,
        chat_id, created_at, created_at + (p * interval '1 day')
      from (select bm.*, coalesce((select last from serial_counters c where c.kind = 'moc' and c.year = bm.year), 0)
                 + row_number() over (partition by year order by i) as n from bm) numbered`;
    await tx`
      insert into serial_counters (kind, year, last)
      select 'moc', serial_year, max(serial_count) from mocs group by serial_year
      on conflict (kind, year) do update set last = excluded.last`;

    const v = (value: string) => `jsonb_build_object('value', ${value})`;
    const stamp = (days: number) => `created_at + interval '${days} days'`;
    const forms: [kind: string, when: string, by: string, days: number, data: string][] = [
      [
        "originator",
        "true",
        "originator",
        0,
        `jsonb_build_object(
          'implementer-name', ${v("jsonb_build_object('_id', implementer, 'name', implementer_name)")},
          'description-of-change', ${v(`'<p>Revise the <strong>bunkering checklist</strong> (rev. ' || i || '): add a second ' ||
            'tank-level cross-check before topping off, and record both readings in the engine log.</p>' ||
            '<ul><li>update checklist OPS-07</li><li>brief the chief engineers</li><li>post the new sheet at every ' ||
            'bunker station</li></ul>'`)},
          'reason-for-change', ${v("'A near miss during bunkering showed that a single level check is not enough'")},
          'department-of-change', ${v("(array['engineering', 'operations', 'fleet', 'hseq'])[1 + i % 4]")},
          'affected-departments', ${v('\'["operations", "fleet"]\'::jsonb')},
          'departments-to-inform', ${v("'[\"hseq\"]'::jsonb")})`,
      ],
      [
        "implementer",
        "p >= 2 or declined = 'b'",
        "implementer",
        1,
        `case when declined = 'b' then jsonb_build_object(
            'details-assessed', ${v("'yes'")}, 'necessary-justified', ${v("'no'")},
            'decline-reason', ${v("'Not justified at this time: postpone to the next dry-dock'")})
          else jsonb_build_object(
            'approver-name', ${v("jsonb_build_object('_id', approver, 'name', approver_name)")},
            'hseq-name', ${v("jsonb_build_object('_id', hseq, 'name', hseq_name)")},
            'details-assessed', ${v("'yes'")}, 'necessary-justified', ${v("'yes'")},
            'target-date', ${v("target_date::text")}) end`,
      ],
      [
        "hseq",
        "p >= 3",
        "hseq",
        2,
        `jsonb_build_object('hseq-change-adequately', ${v("'yes'")}, 'hseq-justification-satisfactory', ${v("'yes'")},
          'hseq-risk-assessment-covered', ${v("'yes'")})`,
      ],
      [
        "approver",
        "p >= 4 or declined = 'd'",
        "approver",
        3,
        `case when declined = 'd' then jsonb_build_object('approver-changes-reviewed', ${v("'yes'")},
            'approver-moc-approved', ${v("'no'")},
            'decline-reason', ${v("'Not justified at this time: postpone to the next dry-dock'")})
          else jsonb_build_object('approver-changes-reviewed', ${v("'yes'")}, 'approver-moc-approved', ${v("'yes'")}) end`,
      ],
      [
        "implementation",
        "p >= 5 and declined is null",
        "implementer",
        4,
        `case when deviation then jsonb_build_object('deviation-during-implementation', ${v("'yes'")},
            'moc-require-extension', ${v("'yes'")}, 'moc-circulated', ${v("'yes'")},
            'implementation-as-planned', ${v("'no'")},
            'deviation-details', ${v("'<p>Used the existing gauge, recalibrated</p>'")},
            'extension-date', ${v("(target_date + 30)::text")}, 'extension-reason', ${v("'Parts back-ordered'")})
          else jsonb_build_object('deviation-during-implementation', ${v("'no'")}, 'moc-require-extension', ${v("'no'")},
            'moc-circulated', ${v("'yes'")}, 'implementation-as-planned', ${v("'yes'")},
            'completion-date', ${v("(created_at + interval '5 days')::date::text")}) end`,
      ],
      [
        "verifier",
        "p = 6",
        "coalesce(verifier, hseq)",
        5,
        `jsonb_build_object('action-plan-correct', ${v("'yes'")}, 'manuals-changed', ${v("'yes'")},
          'trainings-complete', ${v("'yes'")}, 'feedback-complete', ${v("'yes'")}, 'moc-effective', ${v("'yes'")},
          'close-moc', ${v("'yes'")})`,
      ],
    ];
    for (const [kind, when, by, days, data] of forms) {
      await tx.unsafe(`
        insert into moc_forms (moc_id, kind, data, submitted_at, submitted_by, created_at, updated_at)
        select id, '${kind}', ${data},
          case when p = 0 then null else ${stamp(days)} end, case when p = 0 then null else ${by} end,
          ${stamp(days)}, ${stamp(days)}
        from bm where ${when}`);
    }

    await tx`
      insert into moc_users (moc_id, user_id, added_at)
      select distinct on (id, person) id, person, created_at + step * interval '1 day'
      from bm, lateral (values (originator, 0), (case when p >= 1 then implementer end, 0),
                               (approver, 1), (hseq, 1), (verifier, 2)) people(person, step)
      where person is not null
      order by id, person, step`;

    // The audit trail: one entry per step taken, padded to at least 3 with plan edits.
    await tx`
      insert into moc_logs (moc_id, user_id, action, from_status, to_status, comment, at)
      select id,
        case when j > steps then originator
             else (array[originator, implementer, hseq, approver, implementer, coalesce(verifier, hseq)])[j] end,
        case when j > steps then (array['Updated the impact assessment', 'Updated the action plan'])[j - steps]
             when p = 0 then 'Saved a draft of Part A'
             when declined = 'b' and j = 2 then 'Declined at the implementer assessment'
             when declined = 'd' and j = 4 then 'Declined by the approver'
             when deviation and j = 6 then 'Requested a deviation and an extension'
             else (array['Created and submitted Part A', 'Submitted the implementer assessment', 'HSEQ review passed',
                         'Approved', 'Reported the implementation complete', 'Verified and closed'])[j] end,
        case when j = 1 then null when j > steps then status else (array['b', 'c', 'd', 'e', 'f'])[j - 1] end,
        case when j > steps then status
             when declined is not null and j = steps then 'decline'
             when deviation and j = 6 then 'b'
             when p = 0 then 'a'
             else (array['b', 'c', 'd', 'e', 'f', 'f'])[j] end,
        case when declined is not null and j = steps then 'Not justified at this time: postpone to the next dry-dock' end,
        created_at + (j - 1) * interval '1 day'
      from (select bm.*, case when p = 0 then 1 when declined = 'b' then 2 when declined = 'd' then 4
                              when deviation then 6 else p end as steps from bm) s,
           generate_series(1, greatest(3, s.steps)) j`;
  });
}

/** Ids of MOCs at c waiting for the HSEQ review, newest first (the pool the pipeline step uses). */
export async function hseqPool(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from mocs where status = 'c' and not is_deleted order by created_at desc`;
  return rows.map((r) => r.id);
}

/**
 * What the insight figures read besides MOCs and their audit entries: reminder claims (the open
 * MOCs with a target date, one a day from a week before it to three days after, up to today) and
 * one PCR per ten MOCs (two in three finished, each chain slot signed a day or more after the
 * previous one; the rest waiting part-way). Originators are the "everyone else" users, so the
 * standard user's and the admin's pages are not changed.
 */
export async function insertInsightExtras(sql: postgres.Sql, pcrCount: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      insert into moc_reminders (moc_id, day, urgency, days_left, emails_sent, created_at)
      select m.id, d::date, case when m.target_date - d::date < 0 then 'CRITICAL' else 'HIGH' end,
        m.target_date - d::date, 4, d
      from mocs m, generate_series(m.target_date - 7, least(m.target_date + 3, current_date), interval '1 day') d
      where not m.is_deleted and not m.completed and m.status <> 'decline' and m.target_date is not null`;
    await tx.unsafe(`
      create temp table bp on commit drop as
      select i, gen_random_uuid() as id, gen_random_uuid() as chat_id,
        now() - (${pcrCount} - i) * interval '970 minutes' - interval '1 hour' as created_at,
        (select array_agg(id order by email) from users where email like 'bench-%@bench.test') as ids,
        case when i % 3 = 0 then 2 + i % 4 else 6 end as signed
      from generate_series(1, ${pcrCount}) i`);
    await tx`insert into chat_rooms (id, created_at) select chat_id, created_at from bp`;
    await tx.unsafe(`
      insert into pcrs (id, serial_num, serial_year, serial_count, status, originator_id, form, signatures,
                        affected_parties, party_ids, chat_id, finished_at, created_at, updated_at)
      select id, n || '-' || year, year, n, case when signed = 6 then 'finished' else 'pending' end,
        ids[${HSEQ_COUNT + 3} + i % ${OTHERS - 1}],
        '{"originator":"","new-suggestion":false,"procedure-change":true,"safety-critical":false,
          "manual-procedure":"<p>Deck manual 4</p>","suggestion-details":"<p>Check twice</p>",
          "reason-for-change":"<p>Near misses</p>"}'::jsonb,
        (select jsonb_agg(jsonb_build_object('Name', role, 'state', case when k <= signed then 'signed' else 'unsigned' end,
            'signature', case when k <= signed then 'Bench Signer' end,
            'signatureDate', case when k <= signed then to_char((created_at + (k * 1.5 + i % 3) * interval '1 day')
              at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end,
            'Comments', '', 'signedBy', null, 'commentedBy', null) order by k)
         from unnest(array['Change Originator', 'VP Fleet Management', 'HSEQ Coordinator', 'Group HSEQ Manager',
                           'Director HSEQ', 'President']) with ordinality r(role, k)),
        '[]'::jsonb, '{}'::uuid[], chat_id,
        case when signed = 6 then created_at + (9 + i % 3) * interval '1 day' end,
        created_at, created_at + (signed * 1.5 + i % 3) * interval '1 day'
      from (select bp.*, extract(year from created_at at time zone 'UTC')::int as year,
                   row_number() over (partition by extract(year from created_at at time zone 'UTC') order by i) as n
            from bp) numbered`);
    await tx`
      insert into serial_counters (kind, year, last)
      select 'pcr', serial_year, max(serial_count) from pcrs group by serial_year
      on conflict (kind, year) do update set last = excluded.last`;
  });
  await sql`vacuum (analyze)`;
}
