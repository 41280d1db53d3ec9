/**
 * The step engine (docs/decisions/046-workflow-engine.md): `defineWorkflow(kind, order, steps)` turns
 * a record kind's step table into the one way its steps happen (`runner`) and everything that reads the
 * steps (who may act and why not, whether a step is open, what the record waits for, whose it is)
 * with each rule's SQL twin over the kind's alias. The engine knows nothing of MOCs: the kind gives
 * its roles and conditions as SQL, how to lock and load a record with its chains' heads, and its
 * move (the tuned single statement that writes the record, its audit entry, its signature and the
 * chains' heads together). The MOC's workflow is moc-steps.server.ts; a kind of two steps is
 * built in tests/integration/workflow-engine.test.ts.
 */
import { sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import { entryLink, type ChainEntry, type ChainHead, type Link } from "../audit/audit-chain.server";
import type { Actor } from "../authz/authz.server";
import type { PublicUser } from "../people/user.server";
import { literal } from "../shared/sql-literal";

/** What every record kind's state has: the rules' conditions come on top. */
export type BaseState = { status: string; completed: boolean; isDeleted: boolean };

/** What a step's `apply` answers: the status it moves to and its audit entry, at least. */
export type BaseOutcome = {
  to: string;
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
   * `sql`, when it names someone, before them.
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
  /** Four eyes, when the kind has check-steps: why a person is not independent, and its SQL twin. */
  independence?: {
    dependenceOf: (userId: string, record: K["access"], check: K["check"]) => string | null;
    independentSql: (userId: unknown, check: K["check"]) => SQL;
    /** The check a delegate's refusal is judged by when the step names none. */
    defaultCheck: K["check"];
  };
  /** How a status reads in a 409 ("approval"). */
  statusLabel: (status: string) => string;
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
   * whose own assignment it is (`ownsStep`), provided the acting person passes four eyes as a person.
   */
  function actingFor<P extends Actor>(
    s: Name,
    acting: Actor,
    record: A,
    principals: readonly P[] = [],
  ): { onBehalfOf: P | null } | null {
    if (mayAct(s, acting, record)) return { onBehalfOf: null };
    if (!actingIndependent(s, acting, record)) return null;
    const principal = principals.find((p) => mayAct(s, p, record) && ownsStep(s, p, record));
    return principal ? { onBehalfOf: principal } : null;
  }

  /** Why the step cannot be submitted now (a 409 reason), or null when it is open. */
  function whyClosed(s: Name, state: S, statusLabel: (status: string) => string): string | null {
    const { open, part } = steps[s]!;
    if (
      state.completed !== Boolean(open.completed) ||
      state.isDeleted ||
      !(open.statuses as readonly string[]).includes(state.status)
    ) {
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
      order.map(
        (s) =>
          sql`when ${literal(s)} then (${sql.join(
            steps[s]!.owner.roles.map(
              (role: K["role"]) =>
                sql`${config.roles[role as K["role"]].column} is not distinct from ${person._id}::uuid`,
            ),
            sql` or `,
          )})`,
      ),
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
        open.completed ? column("completed") : sql`not ${column("completed")}`,
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
      const named = owner.all
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
        const acting = actingFor(s, actor, record, principals);
        if (!acting) {
          const forSomeone = principals.find((p) => mayAct(s, p, record));
          const independence = config.independence;
          const dependence =
            forSomeone &&
            independence &&
            independence.dependenceOf(actor._id, record, definition.who.independent ?? independence.defaultCheck);
          if (dependence) {
            throw new Forbidden(
              `${definition.who.refusal}; as ${dependence} of this ${config.noun} you cannot take this decision on behalf of ${forSomeone.name} (four eyes)`,
            );
          }
          throw new Forbidden(refusalFor(s, actor, record));
        }
        const onBehalfOf = acting.onBehalfOf;
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
          toStatus: outcome.to,
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
        if (answer === null) throw new Conflict(`This ${config.noun} changed meanwhile; reload it and try again`);
        return answer;
      });
    };

  return {
    kind: config.kind,
    steps,
    order,
    runner,
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
