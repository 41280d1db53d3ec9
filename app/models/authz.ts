/**
 * Who may do what: one module of small named predicates, used by pages, lists and the API alike
 * (clarifications section 4). Tested as a table of role x action in tests/integration/authz.test.ts.
 * No I/O here: callers pass the records they already loaded.
 */
export type Actor = {
  _id: string;
  role: string;
  department: string;
  access: string;
  position: string | null;
};

export const isAdmin = (actor: Actor) => actor.role === "admin";
export const isHseq = (actor: Actor) => actor.department === "hseq";
export const hasFullAccess = (actor: Actor) => actor.access === "full";

/** Create, edit, deactivate and delete users. */
export const canManageUsers = (actor: Actor) => isAdmin(actor);
/** Read the user directory (GET /api/users): any signed-in user. */
export const canListUsers = (_actor: Actor) => true;
/** The admin outbox page and retrying failed email. */
export const canSeeOutbox = (actor: Actor) => isAdmin(actor);
