/**
 * Part A's scopes besides a vessel (docs/decisions/036-vessels-and-crew-access.md). Plain constants, no zod: pages'
 * components read them without loading the schemas (docs/decisions/032-pages-at-sea.md, the JavaScript budget).
 */
export const SCOPES = ["office", "fleet"] as const;
export type Scope = (typeof SCOPES)[number];
/** Whether a posted value names a scope rather than a vessel. */
export const isScope = (value: unknown): value is Scope => SCOPES.some((scope) => scope === value);
export const SCOPE_LABELS: Record<Scope, string> = { office: "Office / shore", fleet: "Fleet-wide" };
