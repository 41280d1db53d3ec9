import { sql, type SQL } from "drizzle-orm";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import * as schema from "./schema";

export type Database = PostgresJsDatabase<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Either the pool or an open transaction: model helpers accept both. */
export type Executor = Database | Transaction;

type Client = { sql: postgres.Sql; db: Database; url: string };

/** Counts the queries sent through the pool (tests/integration/moc-queries.test.ts). */
export type QueryCounter = { count: number };

// On globalThis: a process that loads this module twice (the dev server's reloads, a script
// importing the source beside the bundle) has one pool, whichever copy asks first.
const holder = globalThis as typeof globalThis & {
  __cmDatabase?: Client;
  __cmQueryCounter?: QueryCounter;
  __cmAmbientTransaction?: AsyncLocalStorage<Transaction>;
};
/** The transaction a whole request runs in, when it runs in one (`inRequestTransaction`). */
const ambient = (holder.__cmAmbientTransaction ??= new AsyncLocalStorage<Transaction>());

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (the server sets it when it starts embedded PostgreSQL)");
  return url;
}

function connect(): Client {
  const url = databaseUrl();
  const sql = postgres(url, {
    max: poolSize(),
    // Idle connections are closed so a stopping process is not held open.
    idle_timeout: 20,
    connect_timeout: 10,
    onnotice: () => {},
    // No JIT: the app's statements run in milliseconds, but those over many MOCs (a list's
    // documents, each with its stage; Insight) pass `jit_above_cost`, and compiling them took
    // PostgreSQL 1-3 s (docs/performance.md, "JIT").
    connection: { application_name: "change-management", jit: "off" },
    // Opt-in query counting: only when `globalThis.__cmQueryCounter` exists as the pool is made.
    // (postgres.js's `debug` costs a stack trace per query, so it is never on otherwise.)
    ...(holder.__cmQueryCounter
      ? {
          debug: () => {
            if (holder.__cmQueryCounter) holder.__cmQueryCounter.count += 1;
          },
        }
      : {}),
  });
  return { sql, db: drizzle(preparing(sql), { schema }), url };
}

/**
 * The client drizzle talks through, with every statement a prepared one. Drizzle asks postgres.js
 * for an unnamed statement unless a query is given a name, and postgres.js then spends two round
 * trips on each statement with parameters (Parse and Describe, wait; Bind and Execute, wait), and
 * PostgreSQL parses and plans it every time. Prepared, a statement seen before on the connection
 * is one round trip, parsed once and planned as PostgreSQL's plan cache decides (docs/performance.md,
 * "The pipeline step"). Each connection keeps its statements until it closes: idle ones after
 * 20 s, and every one within an hour (postgres.js's `max_lifetime`), which bounds what they hold.
 */
export function preparing(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (query: string, params?: never[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, params, { ...options, prepare: true });
      }
      if (key === "begin" || key === "savepoint") {
        // A transaction's (or savepoint's) own client, handed to the callback, prepares too.
        return (...args: unknown[]) => {
          const callback = args.at(-1) as (tx: postgres.Sql) => unknown;
          const run = (target as unknown as Record<string, (...a: unknown[]) => unknown>)[key]!;
          return run.call(target, ...args.slice(0, -1), (tx: postgres.Sql) => callback(preparing(tx)));
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

export function getClient(): Client {
  if (!holder.__cmDatabase || holder.__cmDatabase.url !== databaseUrl()) holder.__cmDatabase = connect();
  return holder.__cmDatabase;
}

/**
 * The database: the pool, or, inside `inRequestTransaction`, that request's transaction. There a
 * model's own `getDb().transaction(...)` becomes a savepoint of it, so everything the request
 * writes commits (or not) together with what the caller adds at the end (the idempotency key and
 * its answer: app/web/idempotency.server.ts).
 */
export function getDb(): Database {
  return (ambient.getStore() as unknown as Database | undefined) ?? getClient().db;
}

/**
 * Runs `fn` and everything it starts in one transaction: `getDb()`, the prepared queries of
 * preparedOnce and the statements given `getDb()` all run in it (docs/decisions/040-replays-apply-once.md).
 */
export function inRequestTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
  if (ambient.getStore()) throw new Error("inRequestTransaction does not nest");
  return getClient().db.transaction((tx) => ambient.run(tx, () => fn(tx)));
}

/** How many connections the pool opens at most (DATABASE_POOL_SIZE, default 10). */
export function poolSize(): number {
  return Number(process.env.DATABASE_POOL_SIZE ?? 10);
}

const READ_ONLY_SNAPSHOT = { isolationLevel: "repeatable read", accessMode: "read only" } as const;
/** The `inOneSnapshot` calls holding a second connection now. */
let sideConnectionsInUse = 0;

/**
 * `work` in one read-only snapshot on two connections of the pool: the second transaction imports
 * the first's snapshot (`pg_export_snapshot`, as `pg_dump --jobs` does), so both read exactly the
 * same data, as if in one transaction, and `work` can run a long statement on one while the others
 * run on the second (Insight: docs/performance.md, "Insight on two connections"). At most a fifth
 * of the pool is held this way at a time, so holding one connection while waiting for another can
 * never take the whole pool; past that, or inside a request's own transaction, `work` is given one
 * connection twice and its statements queue on it.
 */
export async function inOneSnapshot<T>(work: (tx: Transaction, side: Transaction) => Promise<T>): Promise<T> {
  return getDb().transaction(async (tx) => {
    if (inAmbientTransaction() || sideConnectionsInUse >= Math.floor(poolSize() / 5)) return work(tx, tx);
    sideConnectionsInUse += 1;
    try {
      const [row] = await tx.execute<{ snapshot: string }>(sql`select pg_export_snapshot() as snapshot`);
      // PostgreSQL's own identifier (hex groups and dashes), checked before it is written into the
      // statement: SET TRANSACTION SNAPSHOT takes no parameter.
      const snapshot = row?.snapshot ?? "";
      if (!/^[0-9A-F]+(-[0-9A-F]+)+$/i.test(snapshot)) return await work(tx, tx);
      return await getDb().transaction(async (side) => {
        await side.execute(sql.raw(`set transaction snapshot '${snapshot}'`));
        return work(tx, side);
      }, READ_ONLY_SNAPSHOT);
    } finally {
      sideConnectionsInUse -= 1;
    }
  }, READ_ONLY_SNAPSHOT);
}

/** True while a request transaction is open (tests and assertions). */
export function inAmbientTransaction(): boolean {
  return ambient.getStore() !== undefined;
}

/**
 * A drizzle prepared query built once per pool (parameters as `sql.placeholder`s) and reused.
 * For queries every request runs: building a query with drizzle costs more Node CPU than
 * PostgreSQL spends on a small prepared one (docs/performance.md). Pool-bound: not for use
 * inside a transaction.
 */
export function preparedOnce<T>(build: (db: Database) => T): () => T {
  let cache: { db: Database; query: T } | undefined;
  return () => {
    const db = getClient().db;
    if (cache?.db !== db) cache = { db, query: build(db) };
    // Inside a request transaction the same query runs on its connection (see getDb).
    const tx = ambient.getStore();
    return tx ? onClient(cache.query, clientOf(tx)) : cache.query;
  };
}

/** `query` with its postgres.js client replaced (its SQL, parameters and row mapping kept). */
function onClient<T>(query: T, client: unknown): T {
  if (typeof query !== "object" || query === null || !("client" in query)) return query;
  return (query as { client?: unknown }).client === client
    ? query
    : (Object.create(query as object, { client: { value: client } }) as T);
}

/**
 * preparedOnce for a family of queries: one prepared query per key (say, per list scope), each
 * built once. `idOf` names a key when keys are objects (equal ids, the same query).
 */
export function preparedOnceBy<K, T>(build: (db: Database, key: K) => T, idOf: (key: K) => unknown = (key) => key) {
  const byId = new Map<unknown, () => T>();
  return (key: K): T => {
    const id = idOf(key);
    let query = byId.get(id);
    if (!query) byId.set(id, (query = preparedOnce((db) => build(db, key))));
    return query();
  };
}

/**
 * A drizzle prepared query built once per pool, like preparedOnce, that runs on the executor each
 * call names: the pool or an open transaction (a step's statements run in its transaction). The
 * query's SQL text, parameter slots and row mapping are drizzle's, made once; each call hands
 * them the executor's connection. For the statements every workflow step runs: drizzle's builder
 * costs more Node CPU than PostgreSQL spends on such a statement (docs/performance.md, "The
 * pipeline step"). tests/integration/db-statements.test.ts holds it to drizzle's own behaviour.
 */
export function statementOnce<T extends object>(build: (db: Database) => T): (db: Executor) => T {
  const once = preparedOnce(build);
  return (db: Executor) => {
    return onClient(once(), clientOf(db));
  };
}

/** statementOnce for a family of statements, one per key (say, per set of columns an update sets). */
export function statementOnceBy<K, T extends object>(
  build: (db: Database, key: K) => T,
  idOf: (key: K) => unknown = (key) => key,
) {
  const byId = new Map<unknown, (db: Executor) => T>();
  return (db: Executor, key: K): T => {
    const id = idOf(key);
    let statement = byId.get(id);
    if (!statement) byId.set(id, (statement = statementOnce((pool) => build(pool, key))));
    return statement(db);
  };
}

/**
 * A statement written with drizzle's `sql` (parameters as `sql.placeholder`s, cast where
 * PostgreSQL cannot infer their type) as a prepared query, for statementOnce: what drizzle's own
 * `execute` makes of it, made once. Its rows come back as PostgreSQL names their columns.
 */
export function preparedSql<Row>(
  db: Database,
  query: SQL,
  name: string,
): { execute(values?: Record<string, unknown>): Promise<Row[]> } {
  const internals = db as unknown as {
    dialect: { sqlToQuery(query: SQL): unknown };
    session: {
      prepareQuery(
        query: unknown,
        fields: undefined,
        name: string,
        isResponseInArrayMode: boolean,
      ): { execute(values?: Record<string, unknown>): Promise<Row[]> };
    };
  };
  return internals.session.prepareQuery(internals.dialect.sqlToQuery(query), undefined, name, false);
}

/** The postgres.js client behind a drizzle database or transaction (its session's). */
function clientOf(db: Executor): unknown {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client) throw new Error("This drizzle executor has no postgres.js client (drizzle's session changed?)");
  return client;
}

export async function closeDb(): Promise<void> {
  const client = holder.__cmDatabase;
  holder.__cmDatabase = undefined;
  await client?.sql.end({ timeout: 5 });
}
