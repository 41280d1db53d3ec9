/**
 * How many image-proxy fetches run at once in this process: per user and in all
 * (IMAGE_PROXY_MAX_PER_USER, IMAGE_PROXY_MAX_CONCURRENT; docs/security.md). A fetch holds its slot
 * until its body has been passed on to the client, so fifty tabs asking for large images cannot
 * hold fifty downloads open.
 */
import { slotGroup } from "../shared/person-slots.server";

export const PROXY_BUSY = "Too many images are being fetched at once; try again in a moment";

const proxySlots = slotGroup("image-proxy", () => PROXY_BUSY);

/** Takes a slot for `userId`, or throws 429; the returned function gives it back (once). */
export const acquireProxySlot = (userId: string, limits: { perUser: number; overall: number }): (() => void) =>
  proxySlots.acquire(userId, limits);

/** In use now (tests). */
export const proxySlotsInUse = (): { total: number; perUser: Record<string, number> } => proxySlots.inUse();
