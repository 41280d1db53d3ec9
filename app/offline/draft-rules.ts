/**
 * Which submissions may wait for the link as drafts (docs/decisions/045-offline-shell-and-drafts.md),
 * what they are called in the list, and how a replay's answer is read. Plain functions, shared by
 * the browser code (app/offline/drafts.ts) and the tests.
 */

/** The hidden field of every page form carrying the submission's idempotency key. */
export const IDEMPOTENCY_FIELD = "idempotencyKey";

export type DraftKind = "moc" | "step" | "chat" | "comment" | "acknowledgement";

/**
 * The kind of draft a POST to `action` with these fields is, or null when it may not wait:
 * Part A of a new MOC, a MOC step form, a chat message (MOC or PCR), a PCR comment, an
 * acknowledgement of a circulated change. A signature
 * that needs a password (any submission carrying a password, or a PCR "sign") never waits.
 */
export function draftKind(action: URL, fields: [string, string][]): DraftKind | null {
  const value = (name: string) => fields.find(([key]) => key === name)?.[1];
  if (fields.some(([key, v]) => key === "password" && v !== "")) return null;
  const intent = value("intent");
  if (intent === "sign") return null;
  const path = action.pathname;
  if (path === "/mocs/new") return "moc";
  if (/^\/(mocs|pcrs)\/[^/]+$/.test(path) && intent === "chat") return "chat";
  if (/^\/pcrs\/[^/]+$/.test(path) && intent === "comment") return "comment";
  // "Read and understood" on a circulation's page (docs/decisions/055-circulations.md): it applies once.
  if (/^\/circulations\/[^/]+$/.test(path) && intent === "acknowledge") return "acknowledgement";
  const step = /^\/mocs\/[^/]+\/([a-z-]+)$/.exec(path)?.[1];
  if (step && step !== "attachments") return "step";
  return null;
}

/** Where a form was written, in its page's words: the record's heading, the form's heading. */
export type DraftPlace = { record?: string; form?: string };

/** What app/offline/drafts.ts tells the page when drafts written on it have gone: where to go next. */
export type DraftsApplied = { applied: number; goTo: string };

/**
 * How a draft is named in the list: which record ("MOC 14-2026 — Bilge alarm panel", from the
 * page it was written on) and which form or what was written.
 */
export function draftLabel(kind: DraftKind, action: URL, fields: [string, string][], place: DraftPlace = {}): string {
  // MOC forms name their answers `<field>.value` (the API's `{ value }` shape).
  const value = (name: string) => fields.find(([key]) => key === name || key === `${name}.value`)?.[1] ?? "";
  const short = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  const record = place.record ? short(place.record) : `a ${action.pathname.startsWith("/pcrs/") ? "PCR" : "MOC"}`;
  switch (kind) {
    case "moc":
      return `New MOC: ${short(value("reason-for-change") || "(no reason given yet)")}`;
    case "chat":
      return `Chat message on ${record}: ${short(value("message"))}`;
    case "comment":
      return `Comment on ${record}: ${short(value("comments"))}`;
    case "step":
      return `${place.form ?? `The "${action.pathname.split("/").at(-1)}" form`} of ${record}`;
    case "acknowledgement":
      return `Read and understood: ${place.record ? short(place.record) : "a circulated change"}`;
  }
}

export const SIGNED_OUT = "You are signed out: sign in again, then send it again.";

/**
 * After a redirect, the flash the page it leads to would show: an error flash (a step refused with
 * 409: the state moved on) or an info flash (the step no longer open for this person: taken
 * meanwhile) is a refusal in the server's words; a success flash or none, applied.
 */
export function flashOutcome(flash: { kind: string; message: string } | null): ReplayOutcome {
  if (flash && (flash.kind === "error" || flash.kind === "info")) return { kind: "refused", message: flash.message };
  return { kind: "applied" };
}

export type ReplayOutcome = { kind: "applied" } | { kind: "refused"; message: string } | { kind: "retry" };

/**
 * Reads the answer to a replayed form that did not redirect (sent as a plain form post): a 4xx,
 * or a page carrying an error or info flash, is a refusal with the page's own words; 5xx is tried again later; anything else applied.
 */
export function readReplay(status: number, finalPath: string, html: string): ReplayOutcome {
  if (status >= 500) return { kind: "retry" };
  if (finalPath === "/login" || finalPath.startsWith("/login/")) {
    return { kind: "refused", message: SIGNED_OUT };
  }
  const text = (fragment: string) =>
    fragment
      .replace(/<[^>]+>/g, " ")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#x27;|&#39;/g, "'")
      .replace(/\s+/g, " ")
      .trim();
  // A refusal that sends back to the record says why in an error flash (a 409: the state moved on)
  // or an info flash (the step is no longer open for this person: taken meanwhile).
  const flash = /<div class="flash flash-(?:error|info)"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1];
  if (flash) return { kind: "refused", message: text(flash) };
  if (status >= 400) {
    const errors = [...html.matchAll(/<ul[^>]*class="field-errors"[^>]*>([\s\S]*?)<\/ul>/g)].map((m) => text(m[1]!));
    const page = /<section class="error-page"[\s\S]*?<h1[^>]*>[\s\S]*?<\/h1>\s*<p>([\s\S]*?)<\/p>/.exec(html)?.[1];
    const message = errors.filter(Boolean).join(" ") || (page ? text(page) : "") || `Refused (${status}).`;
    return { kind: "refused", message };
  }
  return { kind: "applied" };
}
