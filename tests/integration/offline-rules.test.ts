/**
 * The rules of the offline shell and the drafts (docs/decisions/045-offline-shell-and-drafts.md):
 * which pages are kept, the copy served offline, which submissions may wait, and how a replay's
 * answer is read. The browser side is tested in tests/e2e/offline.spec.ts.
 */
import { describe, expect, it } from "vitest";
import { draftKind, draftLabel, flashOutcome, readReplay, SIGNED_OUT } from "~/offline/draft-rules";
import {
  asOf,
  linkedStylesheet,
  offlineCopy,
  offlinePolicy,
  OFFLINE_PAGE_POLICY,
  recordPath,
  sessionOfPage,
  signedOutPage,
  userOfPage,
  withStylesheetInline,
} from "~/offline/pages";
import { offlineSession } from "~/offline/session.server";
import { contentSecurityPolicy } from "~/utils/security-headers.server";
import { SESSION_TTL_SECONDS, signToken } from "~/utils/token.server";

const url = (path: string) => new URL(path, "http://ship.test");
const ID = "0f7a3c1e-2b4d-4e5f-8a9b-0c1d2e3f4a5b";

describe("pages kept for reading offline", () => {
  it("keeps the dashboard and MOC and PCR records, nothing else", () => {
    expect(recordPath("/")).toBe(true);
    expect(recordPath(`/mocs/${ID}`)).toBe(true);
    expect(recordPath(`/pcrs/${ID}`)).toBe(true);
    // What a crew member reads and acknowledges on board (docs/decisions/055-circulations.md).
    expect(recordPath(`/mocs/${ID}/print`)).toBe(true);
    expect(recordPath(`/pcrs/${ID}/print`)).toBe(true);
    expect(recordPath(`/circulations/${ID}`)).toBe(true);
    expect(recordPath("/acknowledgements")).toBe(true);
    for (const path of [
      "/mocs",
      "/mocs/new",
      "/mocs/deleted",
      `/mocs/${ID}/hseq`,
      "/pcrs/new",
      "/circulations/new",
      `/circulations/${ID}/print`,
      `/mocs/${ID}/pdf`,
      "/admin/users",
      "/login",
    ]) {
      expect(recordPath(path), path).toBe(false);
    }
  });

  it("reads the person from <html>, and none from a signed-out page", () => {
    expect(userOfPage(`<!DOCTYPE html><html lang="en" data-offline-user="${ID}"><head>`)).toBe(ID);
    expect(userOfPage(`<!DOCTYPE html><html lang="en"><body data-offline-user="${ID}">`)).toBeNull();
  });

  it("says the time of the copy in UTC, with the day when it is not today", () => {
    const now = new Date("2026-11-26T16:00:00Z");
    expect(asOf(new Date("2026-11-26T14:05:59Z"), now)).toBe("14:05 UTC");
    expect(asOf(new Date("2026-11-25T09:07:00Z"), now)).toBe("25 Nov 09:07 UTC");
  });

  it("serves the copy without its scripts, under the banner", () => {
    const page = `<!DOCTYPE html><html lang="en" data-offline-user="${ID}"><head><link rel="modulepreload" href="/assets/root.js"/><style>body{}</style><script nonce="x">document.documentElement.classList.add('js')</script></head><body class="b"><main>Record</main><script type="module">import "/assets/entry.js"</script></body></html>`;
    const copy = offlineCopy(page, new Date("2026-11-26T14:05:00Z"), new Date("2026-11-26T15:00:00Z"));
    expect(copy).not.toMatch(/<script|modulepreload/);
    expect(copy).toContain("<style>body{}</style>");
    expect(copy).toMatch(/<body class="b"><p class="offline-banner" role="status"[^>]*>Offline — as of 14:05 UTC\./);
    expect(copy).toContain("<main>Record</main>");
    expect(offlineCopy(null, null, new Date())).toContain("This page was not saved for reading offline");
  });

  it("keeps a page with the stylesheet it links written in, so a copy read after a deploy still draws", () => {
    const page = `<!DOCTYPE html><html lang="en"><head><link rel="modulepreload" href="/assets/root.js"/><link rel="stylesheet" href="/assets/all-AbC_1.css"/></head><body><main>Record</main></body></html>`;
    expect(linkedStylesheet(page)).toBe("/assets/all-AbC_1.css");
    const kept = withStylesheetInline(page, "body{color:red}");
    expect(kept).toContain('<style data-href="/assets/all-AbC_1.css">body{color:red}</style>');
    expect(kept).not.toContain('rel="stylesheet"');
    expect(offlineCopy(kept, new Date(), new Date())).toContain("<style data-href");
    // A page that carries the sheet already, and a sheet that would end the element early.
    expect(linkedStylesheet(`<head><style id="app-styles">body{}</style></head>`)).toBeNull();
    expect(withStylesheetInline(page, "a{}</style><script>x()</script>")).toBe(page);
  });
});

describe("saved pages bound to their session", () => {
  const claims = (sid: string) => ({
    _id: ID,
    name: "A",
    email: "a@ship.test",
    role: "user",
    department: "fleet",
    access: "standard",
    position: null,
    sid,
  });
  const SID = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

  it("names the session by a digest of its id, never the id or the token, with the token's end", () => {
    // Signed a minute ago: a fixed day would expire with the session's TTL and fail the test after it.
    const now = Date.now() - 60_000;
    const token = signToken(claims(SID), now);
    const session = offlineSession({ sessionId: SID, token })!;
    expect(session.id).toMatch(/^[\w-]{22}$/);
    expect(token).not.toContain(session.id);
    expect(session.id).not.toContain(SID.slice(0, 8));
    expect(session.expires).toBe(Math.floor(now / 1000) * 1000 + SESSION_TTL_SECONDS * 1000);
    // The same session always has the same name; another session another.
    expect(offlineSession({ sessionId: SID, token: signToken(claims(SID)) })!.id).toBe(session.id);
    expect(offlineSession({ sessionId: ID, token: signToken(claims(ID)) })!.id).not.toBe(session.id);
  });

  it("reads the session from <html>, and none from a page of nobody signed in", () => {
    expect(
      sessionOfPage(
        `<!DOCTYPE html><html lang="en" data-offline-user="${ID}" data-offline-session="abc_-123" data-offline-expires="1796000000000"><head>`,
      ),
    ).toEqual({ id: "abc_-123", expires: 1796000000000 });
    expect(sessionOfPage(`<!DOCTYPE html><html lang="en"><body data-offline-session="abc">`)).toBeNull();
    expect(sessionOfPage(`<html data-offline-session="abc"><head>`)).toBeNull();
    expect(sessionOfPage("")).toBeNull();
  });

  it("serves a copy with the page's own policy, scripts forbidden outright", () => {
    const page = contentSecurityPolicy("bm9uY2U=");
    const offline = offlinePolicy(page);
    expect(offline).not.toContain("nonce-");
    expect(offline).toContain("script-src 'none'");
    const others = (csp: string) =>
      csp
        .split("; ")
        .filter((d) => !d.startsWith("script-src"))
        .sort();
    expect(others(offline)).toEqual(others(page));
    expect(offlinePolicy("default-src 'self'; script-src-elem 'nonce-x'; script-src-attr 'unsafe-inline'")).toBe(
      "default-src 'self'; script-src 'none'",
    );
    expect(offlinePolicy(null)).toBe(OFFLINE_PAGE_POLICY);
    expect(OFFLINE_PAGE_POLICY).toContain("script-src 'none'");
  });

  it("says signed out without a link, and whether the server is still to be told", () => {
    expect(signedOutPage(true)).toContain("<h1>You are signed out</h1>");
    expect(signedOutPage(true)).toContain("The server is told that you signed out as soon as the link is back.");
    expect(signedOutPage(false)).not.toContain("The server is told");
    expect(signedOutPage(false)).not.toMatch(/<script/);
  });
});

describe("submissions that may wait for the link", () => {
  it("Part A, step forms, chat messages, PCR comments and acknowledgements wait; signatures and uploads do not", () => {
    expect(draftKind(url("/mocs/new"), [["reason-for-change.value", "Pump"]])).toBe("moc");
    expect(draftKind(url(`/mocs/${ID}/hseq`), [["answer", "yes"]])).toBe("step");
    expect(
      draftKind(url(`/mocs/${ID}?index`), [
        ["intent", "chat"],
        ["message", "Hi"],
      ]),
    ).toBe("chat");
    expect(
      draftKind(url(`/pcrs/${ID}`), [
        ["intent", "chat"],
        ["message", "Hi"],
      ]),
    ).toBe("chat");
    expect(
      draftKind(url(`/pcrs/${ID}`), [
        ["intent", "comment"],
        ["comments", "Fine"],
        ["password", ""],
      ]),
    ).toBe("comment");
    expect(
      draftKind(url(`/circulations/${ID}`), [
        ["intent", "acknowledge"],
        ["comment", "Which tank?"],
      ]),
    ).toBe("acknowledgement");
    expect(draftKind(url(`/circulations/${ID}`), [["intent", "close"]])).toBeNull();
    expect(
      draftKind(url(`/pcrs/${ID}`), [
        ["intent", "sign"],
        ["signature", "data:"],
      ]),
    ).toBeNull();
    expect(
      draftKind(url(`/pcrs/${ID}`), [
        ["intent", "comment"],
        ["password", "secret"],
      ]),
    ).toBeNull();
    expect(draftKind(url(`/mocs/${ID}/verifier`), [["password", "secret"]])).toBeNull();
    expect(draftKind(url(`/mocs/${ID}/attachments`), [])).toBeNull();
    expect(draftKind(url("/logout"), [])).toBeNull();
    expect(draftKind(url("/admin/users"), [["intent", "chat"]])).toBeNull();
  });

  it("names each draft by what it is", () => {
    expect(draftLabel("moc", url("/mocs/new"), [["reason-for-change.value", "Obsolete pump"]])).toBe(
      "New MOC: Obsolete pump",
    );
    expect(draftLabel("chat", url(`/pcrs/${ID}`), [["message", "x".repeat(70)]])).toBe(
      `Chat message on a PCR: ${"x".repeat(60)}…`,
    );
    expect(draftLabel("step", url(`/mocs/${ID}/hseq`), [])).toBe('The "hseq" form of a MOC');
    expect(draftLabel("acknowledgement", url(`/circulations/${ID}`), [["intent", "acknowledge"]])).toBe(
      "Read and understood: a circulated change",
    );
    expect(
      draftLabel("acknowledgement", url(`/circulations/${ID}`), [], { record: "Circulation of PCR 12 — Bilge" }),
    ).toBe("Read and understood: Circulation of PCR 12 — Bilge");
  });

  it("names the record and the form it was written on, from the page's headings", () => {
    const record = "MOC 14-2026 — Bilge alarm panel";
    expect(draftLabel("step", url(`/mocs/${ID}/hseq`), [], { record, form: "Part C — HSEQ review" })).toBe(
      `Part C — HSEQ review of ${record}`,
    );
    expect(draftLabel("chat", url(`/mocs/${ID}`), [["message", "On my way"]], { record })).toBe(
      `Chat message on ${record}: On my way`,
    );
    // A long title is cut like a long message: the list names, it does not quote.
    expect(
      draftLabel("comment", url(`/pcrs/${ID}`), [["comments", "Fine"]], { record: `PCR 4-2026 — ${"y".repeat(80)}` }),
    ).toBe(`Comment on PCR 4-2026 — ${"y".repeat(47)}…: Fine`);
  });
});

describe("the answer to a replayed draft", () => {
  it("applied: a page without an error", () => {
    expect(readReplay(200, `/mocs/${ID}`, '<div class="flash flash-success" role="status">Raised.</div>')).toEqual({
      kind: "applied",
    });
  });

  it("refused with the server's words: an error or info flash, field errors, an error page", () => {
    expect(
      readReplay(
        200,
        `/mocs/${ID}`,
        '<div class="flash flash-error" role="alert">The step was taken &amp; closed.</div>',
      ),
    ).toEqual({ kind: "refused", message: "The step was taken & closed." });
    expect(
      readReplay(
        200,
        `/mocs/${ID}`,
        '<div class="flash flash-info" role="status">Part C is not open for you now.</div>',
      ),
    ).toEqual({ kind: "refused", message: "Part C is not open for you now." });
    expect(readReplay(400, "/mocs/new", '<ul id="x" class="field-errors"><li>Give a reason.</li></ul>')).toEqual({
      kind: "refused",
      message: "Give a reason.",
    });
    expect(
      readReplay(
        409,
        `/mocs/${ID}`,
        '<section class="error-page"><p class="error-code">409</p><h1 id="t">Something went wrong</h1><p>Already decided.</p></section>',
      ),
    ).toEqual({ kind: "refused", message: "Already decided." });
    expect(readReplay(200, "/login", "<form></form>").kind).toBe("refused");
  });

  it("after a redirect: an error or info flash refuses, a success flash or none applied", () => {
    expect(flashOutcome({ kind: "error", message: "Taken." })).toEqual({ kind: "refused", message: "Taken." });
    expect(flashOutcome({ kind: "info", message: "Not open." })).toEqual({ kind: "refused", message: "Not open." });
    expect(flashOutcome({ kind: "success", message: "Raised." })).toEqual({ kind: "applied" });
    expect(flashOutcome(null)).toEqual({ kind: "applied" });
    expect(readReplay(200, "/login", "")).toEqual({ kind: "refused", message: SIGNED_OUT });
  });

  it("a server error is tried again later", () => {
    expect(readReplay(503, `/mocs/${ID}`, "")).toEqual({ kind: "retry" });
  });
});
