/**
 * The populated MOC document (docs/api-contract.md, "MOC management") as SQL over the row `m`: the
 * one definition used by the API's live reads, by the stored copies in `moc_documents` (db/derived.ts)
 * and by the lists. Plain strings, no drizzle: db/derived.ts writes them into a PL/pgSQL function.
 */
import type { MocFormKind } from "./schema/enums";

const FRACTION = { ms: ".MS", s: "", us: ".US" } as const;

/**
 * ISO 8601 in UTC with a Z, as docs/api-contract.md ask: the one SQL spelling of a time, used by
 * every answer (with milliseconds). `s` is for the CSV cells of the MOC list (whole seconds, as the
 * PCR list's), `us` for the audit chains, whose hashes cover the time to the microsecond.
 */
export const iso = (column: string, precision: keyof typeof FRACTION = "ms") =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS${FRACTION[precision]}"Z"')`;

/** A user as responses carry it: never the password hash. */
export const USER_JSON = (alias: string) =>
  `json_build_object('_id', ${alias}.id, 'name', ${alias}.name, 'email', ${alias}.email, 'role', ${alias}.role, ` +
  `'department', ${alias}.department, 'access', ${alias}.access, 'position', ${alias}.position, 'active', ${alias}.active)`;

export const userRef = (column: string) => `(select ${USER_JSON("u")} from users u where u.id = ${column})`;

const form = (kind: MocFormKind) =>
  `(select jsonb_build_object('_id', f.id, 'submittedAt', ${iso("f.submitted_at")}, ` +
  `'createdAt', ${iso("f.created_at")}, 'updatedAt', ${iso("f.updated_at")}, ` +
  `'submittedBy', (select jsonb_build_object('_id', su.id, 'name', su.name) from users su where su.id = f.submitted_by)) || f.data ` +
  `from moc_forms f where f.moc_id = m.id and f.kind = '${kind}')`;

/**
 * The effectiveness review of the MOC whose id is the SQL expression `mocId` as JSON, or null
 * (issue 42, docs/decisions/058-effectiveness-review.md): the document's `effectiveness_review` and
 * app/models/moc/effectiveness-closure.server.ts's one read of it.
 */
export const EFFECTIVENESS_REVIEW_JSON = (mocId: string) => `(select json_build_object(
    'due_on', r.due_on::text,
    'set_by', case when s.id is null then null else json_build_object('_id', s.id, 'name', s.name) end,
    'set_at', ${iso("r.set_at")},
    'result', r.result, 'comment', r.comment,
    'reviewed_by', case when v.id is null then null else json_build_object('_id', v.id, 'name', v.name) end,
    'reviewed_at', ${iso("r.reviewed_at")})
  from effectiveness_reviews r left join users s on s.id = r.set_by left join users v on v.id = r.reviewed_by
  where r.moc_id = ${mocId})`;

/** The fully populated MOC document for the row `m`. */
export const MOC_JSON = `json_build_object(
  '_id', m.id,
  'serial_num', m.serial_num,
  'status', m.status,
  'completed', m.completed,
  'isDeleted', m.is_deleted,
  'cloned', m.cloned,
  'previous_moc', m.previous_moc_id,
  'originator_form', ${form("originator")},
  'implementer_form', ${form("implementer")},
  'hseq_form', ${form("hseq")},
  'approver_form', ${form("approver")},
  'implementation', ${form("implementation")},
  'verifier_form', ${form("verifier")},
  'originator_id', ${userRef("m.originator_id")},
  'implementer_id', ${userRef("m.implementer_id")},
  'approver_id', ${userRef("m.approver_id")},
  'verifier_id', ${userRef("m.verifier_id")},
  'hseq_id', ${userRef("m.hseq_id")},
  'all_users', coalesce((select json_agg(${USER_JSON("u")} order by mu.added_at, u.name)
      from moc_users mu join users u on u.id = mu.user_id where mu.moc_id = m.id), '[]'::json),
  'logs', coalesce((select json_agg(json_build_object('_id', l.id, 'userId', ${userRef("l.user_id")},
      'onBehalfOf', ${userRef("l.on_behalf_of")}, 'action', l.action, 'from', l.from_status, 'to', l.to_status, 'comment', l.comment, 'at', ${iso("l.at")})
      order by l.seq) from moc_logs l where l.moc_id = m.id), '[]'::json),
  'signatureManifestations', coalesce((select json_agg(json_build_object('signerId', s.signer_id,
      'printedName', s.printed_name,
      'accountName', (select nullif(su.name, s.printed_name) from users su where su.id = s.signer_id),
      'position', s.position, 'role', s.role, 'meaning', s.meaning,
      'signedAt', ${iso("s.signed_at")}, 'onBehalfOf', case when s.on_behalf_of is null then null
        else json_build_object('_id', s.on_behalf_of, 'name', s.on_behalf_of_name) end) order by s.signed_at, s.id)
    from signature_manifestations s where s.record_kind = 'moc' and s.record_id = m.id), '[]'::json),
  'decline', m.decline,
  'extentionsAndDeviations', m.deviations,
  'impact_assessment', m.impact_assessment,
  'risk_assessment', m.risk_assessment,
  'risk_level', m.risk_level,
  'reviewed_risk_level', m.reviewed_risk_level,
  'no_significant_hazard', m.no_significant_hazard,
  'action', m.action,
  'manual_plan', m.manual_plan,
  'plan_owners', coalesce((select json_agg(json_build_object('_id', u.id, 'name', u.name) order by u.name)
      from users u where u.id::text in (
        select i->>'owner' from jsonb_array_elements(m.action->'items') i
        union select i->>'owner' from jsonb_array_elements(m.manual_plan->'items') i)), '[]'::json),
  'chat', m.chat_id,
  'target_date', m.target_date,
  'temporary', m.temporary,
  'effectiveness_review', ${EFFECTIVENESS_REVIEW_JSON("m.id")},
  'createdAt', ${iso("m.created_at")},
  'updatedAt', ${iso("m.updated_at")}
)`;

/** The lightweight MOC used by pending actions and the dashboard. */
export const MOC_SUMMARY_JSON = `json_build_object('_id', m.id, 'serial_num', m.serial_num, 'status', m.status,
  'completed', m.completed, 'target_date', m.target_date, 'createdAt', ${iso("m.created_at")},
  'originator_form', ${form("originator")}, 'originator_id', ${userRef("m.originator_id")})`;
