/** The longest search the box and GET /api/search take (app/models/records/search.schema.ts). */
export const SEARCH_MAX_LENGTH = 200;

/**
 * A group's matches this many or fewer are ranked by relevance; past it, the newest are shown (exact
 * serials still first) and the group says so (`ranked: false`): ranking every match of a word every
 * record carries costs more than the target allows (docs/decisions/039-search.md), and such a list
 * asks for another word whatever its order.
 */
export const SEARCH_RANK_LIMIT = 1_000;

export { CONTROL_CHARACTERS } from "../shared/control-characters";
