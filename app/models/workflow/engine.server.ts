/**
 * The step engine (docs/decisions/046-workflow-engine.md): `defineWorkflow(kind, order, steps)` turns
 * a record kind's step table into the one way its steps happen (`runner`) and everything that reads the
 * steps (who may act and why not, whether a step is open, what the record waits for, whose it is)
 * with each rule's SQL twin over the kind's alias. The engine knows nothing of MOCs: the kind gives
 * its roles and conditions as SQL, how to lock and load a record with its chains' heads, and its
 * move (the tuned single statement that writes the record, its audit entry, its signature and the
 * chains' heads together). A kind whose record holds several slots (a PCR's signatures) moves
 * several of them at once with `slotRunner`, under the same lock, checks and trail. The MOC's
 * workflow is moc-steps.server.ts, the PCR's pcr-chain.server.ts; a kind of two steps and one of
 * slots are built in tests/integration/workflow-engine.test.ts.
 */
import { sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, NotFound, type DomainError } from "~/utils/errors";
import { entryLink, type ChainEntry, type ChainHead, type Link } from "../audit/audit-chain.server";
import type { Actor } from "../authz/authz.server";
import type { PublicUser } from "../people/user.server";
import { literal } from "../shared/sql-literal";

/** What every record kind's state has: the rules' conditions come on top. */
export type BaseState = { status: string; completed: boolean; isDeleted: boolean };

/** What a step's `apply` answers: its audit entry, and the status it moves to. */
export type BaseOutcome = {
  /**
   * The status it moves to. A slot of a multi-slot move (`slotRunner`) that changes only its slot
   * names none, and its entry records no move; a step run alone that names none stays where it is.
   */
  to?: string;
  action: string;
  /** What the signature of a decision means ("approved"), for `signs` steps. */
  meaning?: string;
  comment?: string | null;
};

/**
 * The types of a record kind, in one bag: what authorization reads (`access`), what opens steps
 * (`state`, its boolean `condition`s), its `role`s and `status`es, what a step's `apply` is given
 * beside its input (`context`) and what it answers (`outcome`).
 */
export type KindTypes = {
  access: object;
  condition: string;
  state: BaseState;
  role: string;
  status: string;
  /** The kinds of check four eyes tells apart ("review", "approval"), when the kind has check-steps. */
  check: string;
  context: object;
  outcome: BaseOutcome;
};

/** Who may take a step: the predicate, its SQL twin over the kind's alias, and the 403 message. */
export type Who<A> = { may: (actor: Actor, record: A) => boolean; sql: (actor: Actor) => SQL; refusal: string };

/** A step of a record kind `K`, declared once; `Form` is the schema of what it is given. */
export type StepDef<K extends KindTypes, Form extends z.ZodType = z.ZodType> = {
  /** The URL segment of the step's page. */
  path: string;
  /** How messages and buttons name the step. */
  part: string;
  /** The record's button, when "Open <part>" does not read well. */
  button?: string;
  who: Who<K["access"]> & {
    /**
     * A check-step (four eyes): whoever takes it, in person or on someone else's behalf, must be
     * independent of the record by the kind's `independence` rule for a check of this kind.
     */
    independent?: K["check"];
    /** Whom the step waits on ("waiting on me"), when not everyone who `may` act. */
    waitsOn?: { may: (actor: Actor, record: K["access"]) => boolean; sql: (actor: Actor) => SQL };
    /** A more precise 403 message when the actor is refused for four eyes. */
    conflict?: (actor: Actor, record: K["access"]) => string | null;
    /**
     * Everyone `may` names holds the step as their own (a position's slot, held by each holder of
     * the position): a delegate takes it for any of them, not only for the owner `ownsStep` names.
     */
    anyHolder?: true;
  };
  /** The signature manifestation of a submission: the role it is signed as. */
  signs?: (actor: Actor, record: K["access"]) => string;
  open: {
    /** The statuses it may be submitted in (409 otherwise). */
    statuses: K["status"][];
    /** Conditions that must hold too, each with its 409 reason when it does not. */
    requires?: [condition: K["condition"], holds: boolean, reason: string][];
    /** Open but not what the record waits for in these statuses. */
    notWaitingIn?: K["status"][];
    /** Open on a completed record only; the others never are. */
    completed?: true;
    /** Open, but the record does not wait on it. */
    notWaiting?: true;
    /** Open, but the record waits on it only while this holds. */
    waitsWhen?: K["condition"];
  };
  /** How the status reads while the record waits on this step, and the stepper's part. */
  stage?: { label: string; part: K["status"] };
  /** How the record reads while it waits on this step when a condition holds, before `stage`. */
  flagged?: [condition: K["condition"], label: string][];
  /**
   * Who owns it while the record waits on it: the first named of `roles` (or all, joined by "or");
   * `sql`, when it names someone, before them. No roles: nobody by name (a position's holders),
   * and `otherwise` says who.
   */
  owner: { roles: K["role"][]; all?: true; suffix?: string; otherwise?: string; sql?: SQL };
  /** The form the page posts and the API carries under `bodyKey` (or as the whole body when null). */
  form: Form;
  bodyKey: string | null;
  /**
   * What the step does. A method, so a step with a narrower form is still a step of the table
   * (method parameters are checked both ways; the engine passes each step its own parsed input).
   */
  apply(ctx: K["context"] & { input: z.output<Form> }): Promise<K["outcome"]>;
  /** What the API description says of the step beyond who and when. */
  apiNote?: string;
  /** Its API path when not `/api/submit/<step>` (a spelling clients already use, or one an issue names). */
  apiPath?: string;
};

/** The audit entry a move appends, before its link in the chain is computed. */
export type LogEntry = ChainEntry & { userId: string; fromStatus: string; toStatus: string };

/** Everything a step decided, handed to the kind's `commit` to write in its one statement. */
export type Move<K extends KindTypes, Record> = {
  step: string;
  record: Record;
  /** The acting person, as the trail names them. */
  actor: PublicUser;
  /** The absent person they acted for, or null. */
  onBehalfOf: PublicUser | null;
  outcome: K["outcome"];
  now: Date;
  log: LogEntry;
  /** The audit entry's link in the record's chain. */
  logLink: Link;
  /**
   * The decision's signature, when the step signs: the role it is signed as and what it means. The
   * kind writes the manifestation (signatureRow and signatureLink in audit.server.ts) in its move,
   * as the next link of the chain whose head `heads.signature` is.
   */
  signs: { role: string; meaning: string } | null;
  heads: { log: ChainHead; signature: ChainHead };
};

/** A record kind's rules as the engine reads them: its names, roles and conditions as SQL, four eyes. */
export type KindRules<K extends KindTypes> = {
  /** The audit kind of its trail (and the name of its chain in `audit_heads`). */
  kind: string;
  /** How messages name a record: "MOC". */
  noun: string;
  /** The SQL alias every fragment uses for the record's row (`m` for `mocs m`). */
  alias: string;
  /** Each role: who holds it on a record, and the column naming them over the alias. */
  roles: { [R in K["role"]]: { holder: (record: K["access"]) => string | null; column: SQL } };
  /** Each condition as SQL over the alias (the lists' twin of the state). */
  conditions: { [C in K["condition"]]: SQL };
  /** When the record waits on nothing, whatever its steps say (deleted, declined), as SQL over the alias. */
  restingSql: SQL;
  /** The state's `completed` as SQL over the alias, for a kind without a `completed` column. */
  completedSql?: SQL;
  /** Four eyes, when the kind has check-steps: why a person is not independent, and its SQL twin. */
  independence?: {
    dependenceOf: (userId: string, record: K["access"], check: K["check"]) => string | null;
    independentSql: (userId: unknown, check: K["check"]) => SQL;
    /** The check a delegate's refusal is judged by when the step names none. */
    defaultCheck: K["check"];
  };
  /** How a status reads in a 409 ("approval"). */
  statusLabel: (status: string) => string;
  /**
   * The 409 for a step its record's status does not open, when not "This <noun> is at <status>,
   * so <part> cannot be submitted" (a PCR's API has always said "This PCR is already finished").
   */
  notOpenIn?: (status: string) => string;
};

/** How the engine runs a step of the kind: its lock and load, and its move. */
export type KindRunner<K extends KindTypes, Record extends { id: string }, Answer> = {
  /**
   * The step's first statement: the record locked, with what authorization reads, its state and
   * its chains' heads (locked after the record, so every writer takes the locks in one order).
   */
  load: (
    tx: Transaction,
    id: string,
  ) => Promise<{
    record: Record & K["access"];
    state: K["state"];
    heads: { log: ChainHead; signature: ChainHead };
  } | null>;
  /** What a step's `apply` is given beside its input. */
  context: (base: { tx: Transaction; actor: PublicUser; record: Record & K["access"]; now: Date }) => K["context"];
  /**
   * The move: the record, its audit entry and signature and the chains' heads in one statement,
   * only from the status the step started from; then whatever follows (notices) and the answer.
   * Null when the row had moved meanwhile (nothing written): the engine answers 409.
   */
  commit: (tx: Transaction, move: Move<K, Record & K["access"]>) => Promise<Answer | null>;
  /**
   * The absent people who delegated to the actor today, whose steps they may take
   * (delegation.server.ts `principalsOf`); none when the kind has no delegation.
   */
  principals?: (tx: Transaction, actorId: string) => Promise<PublicUser[]>;
  /** The audit entry's link; by default an `audit_entries`-shaped entry of `kind`. */
  logLink?: (recordId: string, head: ChainHead, entry: LogEntry) => Link;
};

/** What a multi-slot move asks of one slot of the record: to take its step, to note on it, or both. */
export type SlotAsk<Steps extends { [name: string]: { form: z.ZodType } }> = {
  [N in keyof Steps & string]: {
    step: N;
    /** Take the step with this input: who, whether it is open, the kind's `refuses`, then `apply`. */
    take?: z.output<Steps[N]["form"]>;
    /** Leave this note on the slot (the kind's `note`): who only, at any status. */
    note?: string;
    /** The one person whose own slot it is (an affected party's entry): anyone else is refused, delegates too. */
    heldBy?: string;
  };
}[keyof Steps & string];

/** What a multi-slot move's kind is given to build a step's context: the acting person as themselves. */
export type SlotContextBase<Record> = {
  tx: Transaction;
  actor: PublicUser;
  /** The absent person the actor takes this slot for, or null. */
  onBehalfOf: PublicUser | null;
  /** The record as the slots before this one left it. */
  record: Record;
  now: Date;
};

/** An entry of a multi-slot move: a slot's change moves no status, so its `fromStatus` and `toStatus` may be null. */
export type SlotLogEntry = ChainEntry & { userId: string };

/** What a multi-slot move decided, handed to the kind's `commit` to write in one go. */
export type SlotMove<K extends KindTypes, Record> = {
  /** The record as its slots left it (the kind's `apply` and `note` change its copy). */
  record: Record;
  actor: PublicUser;
  now: Date;
  /** The status the move started from (the kind moves the row only from it) and the one it leaves. */
  from: string;
  to: string;
  /** The slots' steps taken, in the order asked, each with the absent person it was taken for. */
  taken: { step: string; onBehalfOf: PublicUser | null; outcome: K["outcome"] }[];
  /** The move's audit entries, in the trail's order, each with its link (chained from `heads.log`). */
  trail: { entry: SlotLogEntry; link: Link }[];
  /**
   * The signatures of the steps taken that sign, in order: the kind writes each manifestation
   * (signatureRow and signatureLink in audit.server.ts) as the next link after `heads.signature`.
   */
  signatures: { step: string; role: string; meaning: string; onBehalfOf: PublicUser | null }[];
  heads: { log: ChainHead; signature: ChainHead };
};

/** How the engine runs a multi-slot move of the kind: its lock and load, its slots' rules beyond the steps, its write. */
export type KindSlots<K extends KindTypes, Record extends { id: string }, Answer> = {
  /** The record locked, with what authorization reads and its chains' heads (locked after the record). */
  load: (
    tx: Transaction,
    id: string,
  ) => Promise<{ record: Record & K["access"]; heads: { log: ChainHead; signature: ChainHead } } | null>;
  /** The state the steps open on, from the record as the slots so far left it. */
  state: (record: Record & K["access"]) => K["state"];
  /** What a step's `apply` and the kind's `note` are given beside their input. */
  context: (base: SlotContextBase<Record & K["access"]>) => K["context"];
  /**
   * The absent people who delegated to the actor today (delegation.server.ts `principalsOf`), read
   * before anything is checked, as `reads` counts them; none when the move has no delegation.
   */
  principals?: (tx: Transaction, actorId: string) => Promise<PublicUser[]>;
  /** Whether the actor may read the record at all (403 "You have no access to this <noun>" before any slot). */
  reads?: (actor: PublicUser, record: Record & K["access"], principals: readonly PublicUser[]) => boolean;
  /**
   * What the kind refuses of a step's slot beyond who and when, once the step is open (a PCR: one
   * person signs one slot), or null.
   */
  refuses?: (
    step: string,
    actor: PublicUser,
    record: Record & K["access"],
    onBehalfOf: PublicUser | null,
  ) => DomainError | null;
  /**
   * A note on a slot (a comment its holders may leave at any status, taken or not): changes the
   * record's copy and answers its audit entry.
   */
  note?: (
    ctx: K["context"] & { step: string; note: string },
  ) => Promise<{ action: string; comment: string | null }> | { action: string; comment: string | null };
  /**
   * The status the move leaves the record in once its slots are done, with its audit entry (the
   * last slot signed finishes it), or null; given the steps taken and the status they left.
   */
  settle?: (
    record: Record & K["access"],
    taken: readonly string[],
    status: string,
  ) => { to: K["status"]; action: string } | null;
  /**
   * The move: the record only from the status it started from, its audit entries, signatures and
   * the chains' heads; then whatever follows (notices) and the answer. Null when the row had moved
   * meanwhile (nothing written): the engine answers 409.
   */
  commit: (tx: Transaction, move: SlotMove<K, Record & K["access"]>) => Promise<Answer | null>;
  /**
   * An audit entry's link; by default `entryLink` of `kind`, whose content names the absent person
   * acted for (a trail without that column, `audit_entries`, hashes the entry without it).
   */
  logLink?: (recordId: string, head: ChainHead, entry: SlotLogEntry) => Link;
};

export { entryLink };

/**
 * The workflow of a record kind: its steps in order (the first open one is what the record waits
 * for), and every rule the steps give, in TypeScript and as SQL over the kind's alias.
 */
export function defineWorkflow<K extends KindTypes, Steps extends { [name: string]: StepDef<K, z.ZodType> }>(
  config: KindRules<K>,
  order: readonly (keyof Steps & string)[],
  steps: Steps,
) {
  type Name = keyof Steps & string;
  type A = K["access"];
  type S = K["state"];
  const column = (name: string) => sql.raw(`${config.alias}.${name}`);
  const completedSql = config.completedSql ?? column("completed");

  const mayAct = (s: Name, actor: Actor, record: A) => steps[s]!.who.may(actor, record);

  const refusalFor = (s: Name, actor: Actor, record: A): string => {
    const who = steps[s]!.who;
    return who.conflict?.(actor, record) ?? who.refusal;
  };

  const ownsStep = (s: Name, person: Actor, record: A) =>
    steps[s]!.owner.roles.some((role: K["role"]) => config.roles[role as K["role"]].holder(record) === person._id);

  const actingIndependent = (s: Name, acting: Actor, record: A) => {
    const check = steps[s]!.who.independent;
    return !check || !config.independence || config.independence.dependenceOf(acting._id, record, check) === null;
  };

  /**
   * Whether `acting` may take the step, and for whom: themselves (`onBehalfOf` null) when the step's
   * rule names them, else the first of `principals` (the absent people who delegated to them today)
   * whose own assignment it is (`ownsStep`, or any holder's for an `anyHolder` step), provided the
   * acting person passes four eyes as a person.
   */
  function actingFor<P extends Actor>(
    s: Name,
    acting: Actor,
    record: A,
    principals: readonly P[] = [],
  ): { onBehalfOf: P | null } | null {
    if (mayAct(s, acting, record)) return { onBehalfOf: null };
    if (!actingIndependent(s, acting, record)) return null;
    const anyHolder = steps[s]!.who.anyHolder;
    const principal = principals.find((p) => mayAct(s, p, record) && (anyHolder || ownsStep(s, p, record)));
    return principal ? { onBehalfOf: principal } : null;
  }

  /**
   * `actingFor`, or the 403 that refuses the actor: the step's refusal, or why four eyes refuses
   * them when they stand in for someone the step names (a delegate who is not independent).
   */
  function actingOrRefused<P extends Actor & { name: string }>(
    s: Name,
    acting: Actor,
    record: A,
    principals: readonly P[],
  ): { onBehalfOf: P | null } {
    const found = actingFor(s, acting, record, principals);
    if (found) return found;
    const definition = steps[s]!;
    const forSomeone = principals.find((p) => mayAct(s, p, record));
    const independence = config.independence;
    const dependence =
      forSomeone &&
      independence &&
      independence.dependenceOf(acting._id, record, definition.who.independent ?? independence.defaultCheck);
    if (dependence) {
      throw new Forbidden(
        `${definition.who.refusal}; as ${dependence} of this ${config.noun} you cannot take this decision on behalf of ${forSomeone.name} (four eyes)`,
      );
    }
    throw new Forbidden(refusalFor(s, acting, record));
  }

  /** Why the step cannot be submitted now (a 409 reason), or null when it is open. */
  function whyClosed(s: Name, state: S, statusLabel: (status: string) => string): string | null {
    const { open, part } = steps[s]!;
    if (
      state.completed !== Boolean(open.completed) ||
      state.isDeleted ||
      !(open.statuses as readonly string[]).includes(state.status)
    ) {
      if (config.notOpenIn && !state.completed && !state.isDeleted) return config.notOpenIn(state.status);
      const now = state.completed ? "completed" : `at ${statusLabel(state.status)}`;
      if (open.completed && !state.completed && !state.isDeleted) {
        return `This ${config.noun} is ${now}, so ${part} cannot be recorded until it is verified and closed`;
      }
      return `This ${config.noun} is ${now}, so ${part} cannot be submitted`;
    }
    for (const [condition, holds, reason] of open.requires ?? []) {
      if (conditionOf(state, condition) !== holds) return reason;
    }
    return null;
  }

  const conditionOf = (state: S, condition: K["condition"]) =>
    Boolean((state as BaseState & { [c: string]: unknown })[condition]);

  const isStepOpen = (s: Name, state: S) => whyClosed(s, state, String) === null;

  const waitsIn = (s: Name, state: S) => {
    const open = steps[s]!.open;
    return (
      !open.notWaiting &&
      !(open.notWaitingIn ?? []).includes(state.status) &&
      (!open.waitsWhen || conditionOf(state, open.waitsWhen))
    );
  };

  /** The step the record waits for now, or null when nothing is open. */
  const stepWaiting = (state: S): Name | null => order.find((s) => isStepOpen(s, state) && waitsIn(s, state)) ?? null;

  /** Steps this actor can submit right now. */
  const openStepsFor = (actor: Actor, access: A, state: S, principals: readonly Actor[] = []): Name[] =>
    order.filter((s) => isStepOpen(s, state) && actingFor(s, actor, access, principals) !== null);

  /** The step waits on this actor now ("waiting on me"): `pendingStepSql`'s twin. */
  function waitsOnActor(s: Name, actor: Actor, access: A, state: S): boolean {
    const who = steps[s]!.who;
    return isStepOpen(s, state) && waitsIn(s, state) && (who.waitsOn ?? who).may(actor, access);
  }

  /** Where the record stands: the waiting step's own stage when it has one, else the status's. */
  function currentStage(state: S): { label: string | null; part: string } {
    const waiting = stepWaiting(state);
    const definition = waiting ? steps[waiting] : undefined;
    const flag = definition?.flagged?.find(([condition]) => conditionOf(state, condition));
    const stage = definition?.stage;
    if (flag) return { label: flag[1], part: stage?.part ?? state.status };
    return stage ? { label: stage.label, part: stage.part } : { label: null, part: state.status };
  }

  // SQL twins, over the kind's alias -----------------------------------------------------------

  const caseOf = (step: SQL, arms: SQL[], otherwise: SQL) =>
    sql`(case ${step} ${sql.join(arms, sql` `)} else ${otherwise} end)`;

  /** `actingIndependent` as SQL, for the step named by `step` (a SQL text value). */
  const actingIndependentSql = (step: SQL, acting: Actor): SQL => {
    const independence = config.independence;
    const checks = independence ? order.filter((s) => steps[s]!.who.independent) : [];
    return caseOf(
      step,
      checks.map(
        (s) => sql`when ${literal(s)} then ${independence!.independentSql(acting._id, steps[s]!.who.independent!)}`,
      ),
      sql`true`,
    );
  };

  /** `ownsStep` as SQL, for the step named by `step` (a SQL text value). */
  const ownedStepSql = (step: SQL, person: Actor): SQL =>
    caseOf(
      step,
      order.map((s) => {
        const roles = steps[s]!.owner.roles;
        const owned = roles.map(
          (role: K["role"]) => sql`${config.roles[role as K["role"]].column} is not distinct from ${person._id}::uuid`,
        );
        return sql`when ${literal(s)} then (${roles.length ? sql.join(owned, sql` or `) : sql`false`})`;
      }),
      sql`false`,
    );

  /** `mayAct` as SQL, for the step named by `step` (a SQL text value). */
  const mayActSql = (step: SQL, actor: Actor): SQL =>
    caseOf(
      step,
      order.map((s) => sql`when ${literal(s)} then ${steps[s]!.who.sql(actor)}`),
      sql`false`,
    );

  /** The step is open and the record waits on it, as SQL (not resting is the caller's). */
  function waitingSql(s: Name): SQL {
    const open = steps[s]!.open;
    const statuses = open.statuses.filter((status) => !(open.notWaitingIn ?? []).includes(status));
    const conditions = (open.requires ?? []).map(([condition, holds]) =>
      holds
        ? config.conditions[condition as K["condition"]]
        : sql`not ${config.conditions[condition as K["condition"]]}`,
    );
    if (open.waitsWhen) conditions.push(config.conditions[open.waitsWhen as K["condition"]]);
    return sql.join(
      [
        open.completed ? completedSql : sql`not ${completedSql}`,
        sql`${column("status")} in (${sql.join(statuses.map(literal), sql`, `)})`,
        ...conditions,
      ],
      sql` and `,
    );
  }

  const waitingSteps = order.filter((s) => !steps[s]!.open.notWaiting);
  const restingCase = (arms: SQL[]) => sql`case
  when ${config.restingSql} then null
  ${sql.join(arms, sql` `)}
end`;

  /** The step the record waits for now, as SQL naming it (null for none): `stepWaiting`'s twin. */
  const waitingStepSql: SQL = restingCase(waitingSteps.map((s) => sql`when ${waitingSql(s)} then ${literal(s)}`));

  /** `currentStage`'s label as SQL (null: the status's own): a step's `flagged` labels first, then its `stage`. */
  const stageLabelSql: SQL = restingCase(
    waitingSteps.flatMap((s) => {
      const definition = steps[s]!;
      return [
        ...(definition.flagged ?? []).map(
          ([condition, label]) =>
            sql`when ${waitingSql(s)} and ${config.conditions[condition as K["condition"]]} then ${literal(label)}`,
        ),
        ...(definition.stage ? [sql`when ${waitingSql(s)} then ${literal(definition.stage.label)}`] : []),
      ];
    }),
  );

  /** Who owns the waiting step, in words, as SQL (the list's "waiting on" column, the reminders). */
  const ownerSql: SQL = restingCase(
    waitingSteps.map((s) => {
      const owner = steps[s]!.owner;
      const names = owner.roles.map(
        (role: K["role"]) => sql`(select name from users where id = ${config.roles[role as K["role"]].column})`,
      );
      const named = !names.length
        ? sql`null::text`
        : owner.all
          ? sql`nullif(concat_ws(' or ', ${sql.join(names, sql`, `)}), '')`
          : sql`coalesce(${sql.join(names, sql`, `)})`;
      const withSuffix = owner.suffix ? sql`${named} || ${literal(owner.suffix)}` : named;
      const full = owner.otherwise ? sql`coalesce(${withSuffix}, ${literal(owner.otherwise)})` : withSuffix;
      return sql`when ${waitingSql(s)} then ${owner.sql ? sql`coalesce(${owner.sql}, ${full})` : full}`;
    }),
  );

  /** The steps that wait on the actor, as a SQL `case` naming the step (null for none). */
  const pendingStepSql = (actor: Actor): SQL =>
    restingCase(
      waitingSteps.map((s) => {
        const who = steps[s]!.who;
        return sql`when ${waitingSql(s)} and ${(who.waitsOn ?? who).sql(actor)} then ${literal(s)}`;
      }),
    );

  /** The pages' view of a step: path and label, for links and buttons. */
  const stepLink = (s: Name) => ({
    step: s,
    path: steps[s]!.path,
    part: steps[s]!.part,
    button: steps[s]!.button ?? null,
  });

  // Running a step -------------------------------------------------------------------------------

  /** The 409 of a move whose row moved between its lock and its write. */
  const changedMeanwhile = `This ${config.noun} changed meanwhile; reload it and try again`;

  /**
   * The one way a step of the kind happens, given how to load and move its records: runs one step
   * of one record for the actor, in one transaction. It locks the record, checks the caller (403,
   * naming why four eyes refuses a delegate) and whether the step is open (409), applies the step
   * and hands the kind's `commit` its move (null: the record moved meanwhile, 409). The actor may
   * act for an absent person who delegated to them today (`actingFor`).
   */
  const runner =
    <Record extends { id: string }, Answer>(kind: KindRunner<K, Record, Answer>) =>
    async <N extends Name>(s: N, actor: PublicUser, id: string, input: z.output<Steps[N]["form"]>): Promise<Answer> => {
      const definition = steps[s]!;
      return getDb().transaction(async (tx) => {
        const loaded = await kind.load(tx, id);
        if (!loaded || loaded.state.isDeleted) throw new NotFound(`No ${config.noun} with this id`);
        const { record, state, heads } = loaded;
        const principals = mayAct(s, actor, record) ? [] : ((await kind.principals?.(tx, actor._id)) ?? []);
        const { onBehalfOf } = actingOrRefused(s, actor, record, principals);
        // The acting person writes; messages name them as acting for the absent person.
        const as = onBehalfOf ? { ...actor, name: `${actor.name} on behalf of ${onBehalfOf.name}` } : actor;
        const closed = whyClosed(s, state, config.statusLabel);
        if (closed) throw new Conflict(closed);
        const now = new Date();
        const outcome = await definition.apply({
          ...kind.context({ tx, actor: as, record, now }),
          input,
        });
        const log: LogEntry = {
          userId: actor._id,
          onBehalfOf: onBehalfOf?._id ?? null,
          action: outcome.action,
          fromStatus: state.status,
          toStatus: outcome.to ?? state.status,
          comment: outcome.comment ?? null,
          at: now,
        };
        const logLink = (kind.logLink ?? ((...a) => entryLink(config.kind, ...a)))(record.id, heads.log, log);
        const answer = await kind.commit(tx, {
          step: s,
          record,
          actor,
          onBehalfOf,
          outcome,
          now,
          log,
          logLink,
          signs:
            definition.signs && outcome.meaning
              ? { role: definition.signs(onBehalfOf ?? actor, record), meaning: outcome.meaning }
              : null,
          heads,
        });
        if (answer === null) throw new Conflict(changedMeanwhile);
        return answer;
      });
    };

  // Moving several slots at once ----------------------------------------------------------------

  /**
   * A multi-slot move: the slots of one record that `asked` names, taken (signed) or noted
   * (commented) by the actor in one transaction, all or nothing, with the guarantees of `runner`.
   * It locks the record with its chains' heads, checks the actor may read it (403), then each slot
   * in the order asked, as the slots before it left the record: its holder (403, or the step's
   * refusal for someone else's own slot), and for a take whether the step is open (409) and the
   * kind's `refuses`, then `apply`; for a note the kind's `note`. `asked` is read lazily, so what it
   * refuses of a slot (a malformed one, 400) is answered after the slots before it. Any refusal
   * refuses the whole move and nothing is written. Then `settle` may move the record's status, and
   * the kind's `commit` writes the record, one audit entry per slot taken and per note (the steps
   * first, then the notes, each in the order asked; then the settling), the signatures, and its
   * notices; null from it (the record moved meanwhile) is 409. Two identical moves at once move the
   * record once: the second finds the slots taken.
   */
  const slotRunner =
    <Record extends { id: string }, Answer>(kind: KindSlots<K, Record, Answer>) =>
    async (actor: PublicUser, id: string, asked: (record: Record & A) => Iterable<SlotAsk<Steps>>): Promise<Answer> =>
      getDb().transaction(async (tx) => {
        const loaded = await kind.load(tx, id);
        if (!loaded || kind.state(loaded.record).isDeleted) throw new NotFound(`No ${config.noun} with this id`);
        const { record, heads } = loaded;
        const principals = (await kind.principals?.(tx, actor._id)) ?? [];
        if (kind.reads && !kind.reads(actor, record, principals)) {
          throw new Forbidden(`You have no access to this ${config.noun}`);
        }
        const from = kind.state(record).status;
        let status = from;
        const now = new Date();
        const entry = (onBehalfOf: PublicUser | null, action: string, comment: string | null, to?: string) => {
          const log: SlotLogEntry = {
            userId: actor._id,
            onBehalfOf: onBehalfOf?._id ?? null,
            action,
            fromStatus: to === undefined ? null : status,
            toStatus: to ?? null,
            comment,
            at: now,
          };
          if (to !== undefined) status = to;
          return log;
        };
        const taken: SlotMove<K, Record & A>["taken"] = [];
        const signatures: SlotMove<K, Record & A>["signatures"] = [];
        const moves: SlotLogEntry[] = [];
        const notes: SlotLogEntry[] = [];
        // A slot noted twice in one move keeps one entry, its last note, where it was first noted.
        const notedAt = new Map<string, number>();
        for (const ask of asked(record)) {
          const definition = steps[ask.step]!;
          if (ask.heldBy !== undefined && ask.heldBy !== actor._id) throw new Forbidden(definition.who.refusal);
          const { onBehalfOf } = actingOrRefused(ask.step, actor, record, principals);
          const context = kind.context({ tx, actor, onBehalfOf, record, now });
          if (ask.take !== undefined) {
            const closed = whyClosed(ask.step, { ...kind.state(record), status }, config.statusLabel);
            if (closed) throw new Conflict(closed);
            const refused = kind.refuses?.(ask.step, actor, record, onBehalfOf);
            if (refused) throw refused;
            const outcome = await definition.apply({ ...context, input: ask.take });
            taken.push({ step: ask.step, onBehalfOf, outcome });
            moves.push(entry(onBehalfOf, outcome.action, outcome.comment ?? null, outcome.to));
            if (definition.signs && outcome.meaning) {
              const role = definition.signs(onBehalfOf ?? actor, record);
              signatures.push({ step: ask.step, role, meaning: outcome.meaning, onBehalfOf });
            }
          }
          if (ask.note !== undefined) {
            if (!kind.note) throw new Error(`The ${config.noun}'s slots take no notes`);
            const noted = await kind.note({ ...context, step: ask.step, note: ask.note });
            const slot = `${ask.step}\n${ask.heldBy ?? ""}`;
            const log = entry(onBehalfOf, noted.action, noted.comment);
            if (notedAt.has(slot)) notes[notedAt.get(slot)!] = log;
            else notedAt.set(slot, notes.push(log) - 1);
          }
        }
        const settled = kind.settle?.(
          record,
          taken.map((t) => t.step),
          status,
        );
        const settling = settled ? [entry(null, settled.action, null, settled.to)] : [];
        const logLink = kind.logLink ?? ((...a) => entryLink(config.kind, ...a));
        let head = heads.log;
        const trail = [...moves, ...notes, ...settling].map((log) => {
          const link = logLink(record.id, head, log);
          head = link;
          return { entry: log, link };
        });
        const answer = await kind.commit(tx, {
          record,
          actor,
          now,
          from,
          to: status,
          taken,
          trail,
          signatures,
          heads,
        });
        if (answer === null) throw new Conflict(changedMeanwhile);
        return answer;
      });

  return {
    kind: config.kind,
    steps,
    order,
    runner,
    slotRunner,
    mayAct,
    refusalFor,
    ownsStep,
    actingFor,
    whyClosed,
    isStepOpen,
    stepWaiting,
    openStepsFor,
    waitsOnActor,
    currentStage,
    actingIndependentSql,
    ownedStepSql,
    mayActSql,
    waitingSql,
    waitingStepSql,
    stageLabelSql,
    ownerSql,
    pendingStepSql,
    stepLink,
  };
}
