/**
 * Loaded after the page (app/root.tsx, `import()`: outside the page's JavaScript budget): registers
 * the service worker and, for a signed-in person, starts the drafts that wait for the link
 * (docs/decisions/045-offline-shell-and-drafts.md). The drafts code itself loads on first need.
 */
let started = false;

export function start(signedIn: boolean): void {
  if ("serviceWorker" in navigator && !started) {
    started = true;
    // After the page's own load: its precache then does not compete with what the page needs.
    const register = () =>
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
        // No worker (an old browser, a private window): the pages work as before.
      });
    if (document.readyState === "complete") void register();
    else window.addEventListener("load", () => void register(), { once: true });
  }
  if (signedIn) void import("./drafts").then((drafts) => drafts.startDrafts());
}
