/** The longest search the box and GET /api/search take (app/models/search.schema.ts). */
export const SEARCH_MAX_LENGTH = 200;
