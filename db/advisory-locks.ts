/**
 * Every PostgreSQL advisory lock key the app takes, in one place: two features sharing a key would
 * wait on each other for no reason (pg-boss start-up and user renames once did). Keys only have to
 * be the same for every instance of the app and different from each other;
 * tests/integration/hardening.test.ts ("advisory lock keys") checks both that they are unique and that no code takes
 * an advisory lock with a key from anywhere else.
 */
export const ADVISORY_LOCKS = {
  /** db/migrate.ts: instances starting together apply migrations one at a time. */
  migrations: 727_001,
  /** db/derived.ts: one change of users' public fields at a time (lock_moc_documents_of_user). */
  userDocuments: 727_002,
  /** app/models/people/user.server.ts: admin changes that must keep at least one active admin. */
  userAdministration: 727_003,
  /** jobs/boss.ts: pg-boss creates its queues in one process at a time. */
  jobsSetup: 727_004,
  /** app/models/moc/reminder.server.ts: reminder runs take turns. */
  reminders: 727_008,
  /**
   * db/migrations/0010_records_people_can_trust.sql (the audit chain triggers): one writer per record's chain, taken in SQL with
   * the two-key form of the transaction lock: this key and hashtext('<kind>:<record id>').
   */
  auditChains: 727_009,
} as const;
