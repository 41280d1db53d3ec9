// App code reaches the database through this module (nothing server-only leaks into the browser).
export {
  getDb,
  inRequestTransaction,
  inOneSnapshot,
  poolSize,
  closeDb,
  preparedOnce,
  preparedOnceBy,
  preparedSql,
  statementOnce,
  statementOnceBy,
  type Database,
  type Executor,
  type Transaction,
} from "#db/client";
