/**
 * Drafts that wait for the link (docs/decisions/045-offline-shell-and-drafts.md). With JavaScript,
 * a form that may wait (app/offline/draft-rules.ts) sent while offline, or whose post failed for
 * the network, is kept in IndexedDB (per person) with its idempotency key, listed under "Waiting
 * to send", and sent again in the order written when the link returns (the `online` event, and
 * retries with backoff). Each outcome is told; a refusal stays in the list with the server's words
 * until the person discards it or sends it again. A replay carries the key of the first attempt,
 * so a post the server applied but whose answer was lost applies once. Signing out deletes the
 * person's drafts, after asking when there are any.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { decode } from "turbo-stream";
import {
  draftKind,
  draftLabel,
  flashOutcome,
  IDEMPOTENCY_FIELD,
  readReplay,
  SIGNED_OUT,
  type DraftKind,
  type DraftPlace,
  type DraftsApplied,
  type ReplayOutcome,
} from "./draft-rules";
import { USER_ATTRIBUTE } from "./pages";

type Draft = {
  id?: number;
  user: string;
  kind: DraftKind;
  label: string;
  action: string;
  fields: [string, string][];
  key: string;
  createdAt: number;
  state: "waiting" | "refused";
  message?: string;
  /** Its post went out once (and failed for the network): the server may have applied it. */
  sent?: boolean;
};

interface DraftsDb extends DBSchema {
  drafts: { key: number; value: Draft; indexes: { user: string } };
}

const MAX_BACKOFF_MS = 60_000;
/** A post that failed for the network while the browser says it is online is tried again after this. */
const RETRY_AFTER_FAILURE_MS = 2_000;
/** A post that fails this long after its submit event is taken as that submission's. */
const SUBMIT_WINDOW_MS = 30_000;

let db: Promise<IDBPDatabase<DraftsDb>> | null = null;
const database = () =>
  (db ??= openDB<DraftsDb>("cm-drafts", 1, {
    upgrade(upgrade) {
      upgrade.createObjectStore("drafts", { keyPath: "id", autoIncrement: true }).createIndex("user", "user");
    },
  }));

const currentUser = () => document.documentElement.getAttribute(USER_ATTRIBUTE);

async function drafts(): Promise<Draft[]> {
  const user = currentUser();
  if (!user) return [];
  const all = await (await database()).getAllFromIndex("drafts", "user", user);
  return all.sort((a, b) => a.createdAt - b.createdAt || (a.id ?? 0) - (b.id ?? 0));
}

/** 128 random bits as hex (`crypto.randomUUID` needs a secure context; a ship's server may be plain http). */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The form's fields as the browser would post them, with the button that sent it. */
function fieldsOf(form: HTMLFormElement, submitter: HTMLElement | null): [string, string][] {
  const data = new FormData(
    form,
    submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement ? submitter : null,
  );
  const fields: [string, string][] = [];
  for (const [name, value] of data) if (typeof value === "string") fields.push([name, value]);
  return fields;
}

/** Where a form is, in the words of its page: the record's heading and the form's own. */
function placeOf(form: HTMLFormElement): DraftPlace {
  const words = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, " ").trim() || undefined;
  return {
    record: words(document.querySelector("main h1")),
    form: words(form.closest("section")?.querySelector("h2")),
  };
}

/**
 * Keeps a submission as a draft. `sent`: its post went out (and failed for the network): it keeps
 * the form's key, since the server may have applied it. One never sent gets a key of its own: the
 * form on the page keeps its key for the next thing written there, which must not share it. A form
 * (Part A, a step) sent again before the link returns replaces its unsent draft: one submission.
 */
async function keep(
  action: URL,
  kind: DraftKind,
  fields: [string, string][],
  sent: boolean,
  place: DraftPlace,
): Promise<void> {
  const user = currentUser();
  if (!user) return;
  const path = action.pathname + action.search;
  const earlier =
    sent || kind === "chat" || kind === "comment"
      ? undefined
      : (await drafts()).find((d) => d.action === path && d.state === "waiting" && !d.sent);
  // The fields exactly as the form sent them (or would have): the server compares a replay's body
  // with the first one under the same key. A draft never holds a password (draftKind).
  const formKey = fields.find(([name]) => name === IDEMPOTENCY_FIELD)?.[1];
  const key = earlier?.key ?? (sent && formKey ? formKey : newKey());
  // Never sent: "via=js" (the chat's "answer with data") goes, so that the replay, a plain form
  // post, gets the short redirect a browser without JavaScript gets instead of a whole page.
  const own = sent ? fields : fields.filter(([name]) => name !== "via");
  const kept: [string, string][] = formKey
    ? own.map(([name, value]) => [name, name === IDEMPOTENCY_FIELD ? key : value])
    : [...own, [IDEMPOTENCY_FIELD, key]];
  const draft: Draft = {
    ...(earlier?.id !== undefined ? { id: earlier.id } : {}),
    user,
    kind,
    label: draftLabel(kind, action, kept, place),
    action: path,
    fields: kept,
    key,
    createdAt: earlier?.createdAt ?? Date.now(),
    state: "waiting",
    sent,
  };
  await (await database()).put("drafts", draft);
  announce(
    `${earlier ? "Replaced" : "Kept"}: ${draft.label}. Waiting to send; it goes when the link is back. The form keeps what you wrote.`,
  );
  await changed();
}

// ---- sending ---------------------------------------------------------------------------------

let sending = false;
let attempt = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function schedule(ms: number) {
  clearTimeout(timer);
  timer = setTimeout(() => void sendAll(), ms);
}

/**
 * What the page told after a redirect: the root loader's flash (read once, as a page would show it),
 * asked for alone (`/_root.data?_routes=root`, a few hundred bytes instead of the whole page), and
 * whether the person is still signed in (a post of a signed-out person redirects to sign in).
 */
async function afterRedirect(): Promise<ReplayOutcome> {
  const response = await fetch("/_root.data?_routes=root", { credentials: "same-origin" });
  if (response.status >= 500 || !response.body) return { kind: "retry" };
  const { value, done } = await decode(response.body);
  await done;
  type Root = { user?: unknown; flash?: { kind: string; message: string } | null };
  const root = (value as { root?: { data?: Root } }).root?.data;
  if (!root?.user) return { kind: "refused", message: SIGNED_OUT };
  return flashOutcome(root.flash ?? null);
}

async function answerOf(draft: Draft): Promise<ReplayOutcome | "offline"> {
  try {
    // The post as a browser without JavaScript sends it; its redirect is not followed (the page it
    // leads to is not needed: only the flash it would show).
    const response = await fetch(draft.action, {
      method: "POST",
      body: new URLSearchParams(draft.fields),
      headers: { "Idempotency-Key": draft.key },
      credentials: "same-origin",
      redirect: "manual",
    });
    if (response.type !== "opaqueredirect")
      return readReplay(response.status, new URL(draft.action, location.href).pathname, await response.text());
    return await afterRedirect();
  } catch {
    return "offline";
  }
}

async function sendOne(draft: Draft): Promise<"applied" | "refused" | "offline"> {
  const outcome = await answerOf(draft);
  const store = await database();
  if (outcome === "offline" || outcome.kind === "retry") return "offline";
  if (outcome.kind === "applied") {
    await store.delete("drafts", draft.id!);
    announce(`Sent: ${draft.label}.`);
    return "applied";
  }
  await store.put("drafts", { ...draft, state: "refused", message: outcome.message });
  announce(`Not accepted: ${draft.label}. ${outcome.message}`);
  return "refused";
}

/**
 * Sends the waiting drafts in the order written; stops at the first that finds no link. One tab
 * at a time (a Web Lock): every open tab hears `online`, and each reads the list afresh inside it.
 */
async function sendAll(): Promise<void> {
  if (sending || !navigator.onLine) return;
  if (navigator.locks) await navigator.locks.request("cm-drafts-send", sendInOrder);
  else await sendInOrder();
}

async function sendInOrder(): Promise<void> {
  if (sending || !navigator.onLine) return;
  sending = true;
  const applied: Draft[] = [];
  try {
    for (const draft of await drafts()) {
      if (draft.state !== "waiting") continue;
      const result = await sendOne(draft);
      await changed();
      if (result === "offline") {
        attempt += 1;
        const wait = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) * (0.75 + Math.random() / 2);
        schedule(wait);
        return;
      }
      if (result === "applied") applied.push(draft);
    }
    attempt = 0;
  } finally {
    sending = false;
    if (applied.length) afterApplied(applied);
  }
}

/**
 * What was written on this page has gone: a form of Part A starts empty again, and the page asks
 * for its data afresh (app/root.tsx listens): a step sent from its own form leads to the record,
 * where the MOC's new step shows, as after a post with the link.
 */
function afterApplied(applied: Pick<Draft, "kind" | "action">[], tell = true) {
  // Another tab may show the form a draft came from (the tab that sent it need not be the one
  // that wrote it): each tab moves on from its own form (issue 38 item 10).
  if (tell) channel?.postMessage({ applied: applied.map(({ kind, action }) => ({ kind, action })) });
  const here = location.pathname + location.search;
  for (const draft of applied) {
    if (draft.kind !== "moc") continue;
    for (const form of document.querySelectorAll("form")) {
      const target = new URL(form.getAttribute("action") ?? location.href, location.href);
      if (target.pathname + target.search === draft.action) form.reset();
    }
  }
  const step = applied.find(
    (d) => d.kind === "step" && new URL(d.action, location.href).pathname === location.pathname,
  );
  const detail: DraftsApplied = {
    applied: applied.length,
    goTo: step ? new URL(step.action, location.href).pathname.replace(/\/[^/]+$/, "") : here,
  };
  document.dispatchEvent(new CustomEvent("drafts:applied", { detail }));
}

// ---- the list --------------------------------------------------------------------------------

let panel: HTMLElement | null = null;
let expanded = true;
let live: HTMLElement | null = null;

function announce(text: string) {
  if (!live) return;
  live.textContent = "";
  // A fresh text node, so that the same words twice are read twice.
  setTimeout(() => live && (live.textContent = text), 50);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, css?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (css) node.style.cssText = css;
  return node;
}

function button(text: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", text);
  node.type = "button";
  node.className = "button button-quiet";
  node.addEventListener("click", onClick);
  return node;
}

/** Other tabs of the app redraw their list when this one changes it. */
let channel: BroadcastChannel | null = null;
async function changed(): Promise<void> {
  channel?.postMessage("changed");
  await render();
}

async function render(): Promise<void> {
  if (!panel || !live) return;
  // An error page of the root route draws the whole document again: the list goes back in.
  if (!panel.isConnected) place();
  const list = await drafts();
  panel.hidden = list.length === 0;
  panel.replaceChildren();
  const waiting = list.filter((d) => d.state === "waiting").length;
  const refused = list.length - waiting;
  // A summary that folds the list away (on a phone it would cover the form being written).
  const details = el("details");
  details.open = expanded;
  details.addEventListener("toggle", () => (expanded = details.open));
  const summary = el("summary", undefined, "cursor:pointer");
  const heading = el(
    "h2",
    `Waiting to send (${waiting})${refused ? `, not accepted (${refused})` : ""}`,
    "display:inline;font-size:1rem;margin:0",
  );
  heading.id = "drafts-heading";
  summary.append(heading);
  const items = el("ul", undefined, "margin:.4rem 0 0;padding:0;list-style:none;max-height:40vh;overflow:auto");
  for (const draft of list) {
    const item = el("li", undefined, "padding:.35rem 0;border-top:1px solid #ddd");
    item.append(el("span", draft.label, "display:block;overflow-wrap:anywhere"));
    if (draft.state === "waiting") {
      item.append(el("span", "Waiting to send", "display:block;color:#7a4b00;font-weight:600"));
    } else {
      item.append(el("span", `Not accepted: ${draft.message ?? ""}`, "display:block;color:#a4161a;font-weight:600"));
      const actions = el("span", undefined, "display:flex;gap:.5rem;margin-top:.25rem");
      actions.append(
        button("Send again", async () => {
          await (await database()).put("drafts", { ...draft, state: "waiting", message: undefined });
          await changed();
          void sendAll();
        }),
        button("Discard", async () => {
          await (await database()).delete("drafts", draft.id!);
          announce(`Discarded: ${draft.label}.`);
          await changed();
        }),
      );
      item.append(actions);
    }
    items.append(item);
  }
  details.append(summary, items);
  panel.append(details);
  showInThreads(list);
}

/**
 * A chat message waiting to send shows in its thread, marked so (the chat panel keeps an empty
 * list for them, `data-chat-waiting` naming its record's address), until it is sent or discarded.
 */
function showInThreads(list: Draft[]) {
  for (const thread of document.querySelectorAll<HTMLElement>("[data-chat-waiting]")) {
    const mine = list.filter(
      (d) => d.kind === "chat" && new URL(d.action, location.href).pathname === thread.dataset.chatWaiting,
    );
    thread.hidden = mine.length === 0;
    thread.replaceChildren(
      ...mine.map((draft) => {
        const item = el("li");
        item.className = "chat-message chat-mine chat-waiting-message";
        const meta = el("p", draft.state === "waiting" ? "Waiting to send" : `Not accepted: ${draft.message ?? ""}`);
        meta.className = "chat-meta";
        const text = el("p", draft.fields.find(([name]) => name === "message")?.[1] ?? "");
        text.className = "chat-text";
        item.append(meta, text);
        return item;
      }),
    );
  }
}

function mount() {
  // In the page's flow above its content, never over it: on a phone a panel floating over the
  // form would cover the field being written.
  panel = el(
    "section",
    undefined,
    "box-sizing:border-box;max-width:calc(1200px - 2rem);margin:.75rem max(1rem,calc((100% - 1200px) / 2 + 1rem)) 0;background:#fff;color:#111;border:2px solid #7a4b00;border-radius:.4rem;padding:.6rem .8rem",
  );
  panel.className = "drafts-panel";
  panel.setAttribute("aria-labelledby", "drafts-heading");
  panel.hidden = true;
  live = el("div", undefined, "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)");
  live.className = "drafts-status";
  live.setAttribute("role", "status");
  place();
}

/** The list goes just above the page's content (after the navigation). */
function place() {
  if (!panel || !live) return;
  const main = document.getElementById("main");
  if (main) main.before(panel, live);
  else document.body.append(panel, live);
}

// ---- signing out ---------------------------------------------------------------------------------

/** Sign-out forms cleared to go (after the warning, or with nothing unsent). */
const cleared = new WeakSet<HTMLFormElement>();

/**
 * Signing out deletes the person's drafts from this browser (nothing of theirs stays readable on
 * it). They are work not yet sent: with any, the person is asked first, with the list, and may
 * stay signed in to send them.
 */
function onSignOut(event: SubmitEvent, form: HTMLFormElement) {
  if (cleared.delete(form)) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  // Without a link only the service worker can answer a sign-out (and tell the server later).
  if (!navigator.onLine && !navigator.serviceWorker?.controller) {
    announce("Signing out needs the link on this connection: nothing was changed. Try again when it is back.");
    return;
  }
  void (async () => {
    const unsent = await drafts();
    if (unsent.length === 0 || (await confirmLoss(unsent))) {
      const store = await database();
      await Promise.all(unsent.map((draft) => store.delete("drafts", draft.id!)));
      if (unsent.length) await changed();
      cleared.add(form);
      form.requestSubmit();
    }
  })();
}

function confirmLoss(unsent: Draft[]): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = el(
      "dialog",
      undefined,
      "max-width:min(30rem,calc(100vw - 2rem));border:2px solid #a4161a;border-radius:.4rem",
    );
    dialog.className = "sign-out-warning";
    dialog.setAttribute("aria-labelledby", "sign-out-warning-title");
    const title = el(
      "h2",
      `Delete ${unsent.length === 1 ? "1 unsent form" : `${unsent.length} unsent forms`}?`,
      "font-size:1.1rem;margin:0 0 .5rem",
    );
    title.id = "sign-out-warning-title";
    const list = el("ul", undefined, "margin:.4rem 0;padding-left:1.2rem");
    for (const draft of unsent) list.append(el("li", draft.label, "overflow-wrap:anywhere"));
    const actions = el("p", undefined, "display:flex;gap:.5rem;flex-wrap:wrap;margin:.8rem 0 0");
    const done = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const stay = button("Stay signed in", () => done(false));
    const leave = button("Sign out and delete them", () => done(true));
    leave.className = "button";
    actions.append(stay, leave);
    dialog.append(
      title,
      el("p", "These have not reached the server. Signing out deletes them from this device:"),
      list,
      actions,
    );
    dialog.addEventListener("cancel", () => done(false));
    document.body.append(dialog);
    dialog.showModal();
    stay.focus();
  });
}

// ---- catching the submissions ----------------------------------------------------------------

type Pending = {
  action: URL;
  kind: DraftKind;
  fields: [string, string][];
  at: number;
  form: HTMLFormElement;
  place: DraftPlace;
};
let pending: Pending | null = null;

function onSubmit(event: SubmitEvent) {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || event.defaultPrevented) return;
  if ((form.method || "get").toLowerCase() !== "post" || form.enctype === "multipart/form-data") return;
  const action = new URL(form.getAttribute("action") ?? location.href, location.href);
  if (action.origin !== location.origin) return;
  if (action.pathname === "/logout") return onSignOut(event, form);
  // A form holding a password field (a signature) never waits, whatever the button.
  const fields = fieldsOf(form, event.submitter);
  const kind =
    form.querySelector('input[type="password"]') && !fields.some(([k, v]) => k === "intent" && v === "comment")
      ? null
      : draftKind(action, fields);
  if (!kind) return;
  if (!navigator.onLine) {
    // Written offline: kept here, and the page's own handler never sees it.
    event.preventDefault();
    event.stopImmediatePropagation();
    // A chat message shows in its thread as waiting: its box is free for the next one. Any other
    // form keeps what was written until it is sent.
    void keep(action, kind, fields, false, placeOf(form)).then(() => kind === "chat" && form.reset());
    return;
  }
  pending = { action, kind, fields, at: Date.now(), form, place: placeOf(form) };
}

/** The page's post failed for the network: the submission just made becomes a draft. */
function watchFailures() {
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    try {
      return await original(input, init);
    } catch (error) {
      const caught = pending;
      if (
        method === "POST" &&
        caught &&
        Date.now() - caught.at < SUBMIT_WINDOW_MS &&
        !(error instanceof DOMException && error.name === "AbortError")
      ) {
        pending = null;
        await keep(caught.action, caught.kind, caught.fields, true, caught.place);
        // The browser still says it is online: try again after a pause (then with backoff).
        schedule(RETRY_AFTER_FAILURE_MS);
        // The page may draw its error page next (the post failed): show the list again after it.
        setTimeout(() => void render(), 500);
      }
      throw error;
    }
  };
}

/** Offline, links open whole pages, which the service worker serves from what it saved. */
function onClick(event: MouseEvent) {
  if (navigator.onLine || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey) return;
  const link = (event.target as Element | null)?.closest?.("a[href]");
  if (!(link instanceof HTMLAnchorElement) || link.origin !== location.origin || link.target) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  location.assign(link.href);
}

let running = false;

export function startDrafts(): void {
  if (running || !("indexedDB" in window)) return;
  running = true;
  mount();
  window.addEventListener("submit", onSubmit, true);
  window.addEventListener("click", onClick, true);
  window.addEventListener("online", () => {
    attempt = 0;
    void sendAll();
  });
  watchFailures();
  if ("BroadcastChannel" in window) {
    channel = new BroadcastChannel("cm-drafts");
    channel.addEventListener("message", (event: MessageEvent) => {
      const applied = (event.data as { applied?: Pick<Draft, "kind" | "action">[] } | null)?.applied;
      if (Array.isArray(applied)) afterApplied(applied, false);
      void render();
    });
  }
  // Tells the page (and its tests) that submissions are now caught.
  document.documentElement.setAttribute("data-drafts", "ready");
  void render().then(() => sendAll());
}
