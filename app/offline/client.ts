/**
 * Loaded after the page (app/root.tsx, `import()`: outside the page's JavaScript budget): registers
 * the service worker, tells it which session the page was answered under (none: signed out), and
 * for a signed-in person starts the drafts that wait for the link
 * (docs/decisions/045-offline-shell-and-drafts.md). The drafts code itself loads on first need.
 */
let started = false;

/** A message to the worker that controls this page, if one does. */
function tell(message: { type: "session"; id: string | null } | { type: "online" }): void {
  navigator.serviceWorker?.controller?.postMessage(message);
}

export function start(signedIn: boolean, session: string | null): void {
  if ("serviceWorker" in navigator && !started) {
    started = true;
    // After the page's own load: its precache then does not compete with what the page needs.
    const register = () =>
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
        // No worker (an old browser, a private window): the pages work as before.
      });
    if (document.readyState === "complete") void register();
    else window.addEventListener("load", () => void register(), { once: true });
    // A sign-out made without a link goes to the server as soon as it is back.
    window.addEventListener("online", () => tell({ type: "online" }));
  }
  // The page's data says who is signed in now (a loader's answer after the session ended sends
  // the page to sign in, and its data then names no session): pages saved under another session go.
  tell({ type: "session", id: signedIn ? session : null });
  if (signedIn) void import("./drafts").then((drafts) => drafts.startDrafts());
}
