/** The sign-in failure budget (docs/decisions/001-session-tokens.md: 10 failures per 15 minutes), spent per account and address by app/models/password-attempts.server.ts. */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;
