/**
 * What a page tells the service worker of its session (docs/decisions/045-offline-shell-and-drafts.md):
 * a name for the session and when it ends, written on <html> (app/root.tsx). Saved pages are kept
 * under that name and dropped as soon as an answer names another session or none, and never served
 * after the end. The name is a one-way digest of the session row's id: not the token (which alone
 * opens the session), and not the id either, so the page and the browser's caches hold nothing a
 * request could be made with.
 */
import { createHash } from "node:crypto";
import type { Identity } from "~/web/auth.server";
import { verifyToken } from "~/utils/token.server";
import type { PageSession } from "./pages";

export function offlineSession(identity: Pick<Identity, "sessionId" | "token">): PageSession | null {
  const verified = verifyToken(identity.token);
  if (!verified.ok) return null;
  const id = createHash("sha256").update(`offline-session:${identity.sessionId}`).digest("base64url").slice(0, 22);
  return { id, expires: verified.payload.exp * 1000 };
}
