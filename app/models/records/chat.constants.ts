/**
 * Chat limits without the schemas: the chat panel (browser) reads them without loading zod
 * (docs/decisions/032-pages-at-sea.md); app/models/records/chat.schema.ts re-exports them.
 */
import { CHAT_MESSAGE_MAX } from "#db/schema/enums";

export { CHAT_MESSAGE_MAX };

/** How many messages a page shows at first, and how many "Show older messages" adds. */
export const CHAT_PAGE_SIZE = 100;
/** The most messages one poll returns; a full batch means "ask again at once". */
export const CHAT_POLL_BATCH = 200;
/** How often an open, visible panel asks for new messages. */
export const CHAT_POLL_MS = 1500;
