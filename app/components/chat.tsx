/**
 * The chat panel of a MOC or PCR record. Without JavaScript it is a list and a form that posts to
 * the page's action (which redirects back here). With JavaScript the form posts through a fetcher,
 * and the panel asks for new messages every 1.5 s while the tab is visible, so messages from
 * others (on any app instance: the poll reads the database) appear without a reload.
 */
import { Link, useActionData, useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type MouseEvent } from "react";
import { useHydrated } from "./use-hydrated";
import { CHAT_POLL_MS } from "~/models/records/chat.constants";
import type { ChatMessageView, chatText } from "~/models/records/chat.schema";
import { ErrorList } from "./submit";
import { FetcherForm } from "./form";
import { formatDateTime } from "./moc";

export type ChatPanelData = {
  /** `record`: the page; `action`: where the form posts; `poll`: the JSON reads. */
  paths: { record: string; action: string; poll: string };
  viewerId: string;
  messages: ChatMessageView[];
  hasOlder: boolean;
  /** Set when the page shows an older window of the room (`?chat_before=`), not the latest messages. */
  before: number | null;
};

/**
 * The chat action's answer: conform's reply (app/web/chat-page.server.ts), of which the panel reads
 * the errors (by field; "" for the form's own) and, after a refusal, the text to put back.
 */
type ChatReply = {
  status?: "success" | "error";
  error?: Record<string, string[] | null> | null;
  initialValue?: Record<string, unknown> | null;
};
type ChatActionData = { chat: ChatReply; posted?: ChatMessageView };
type ChatText = typeof chatText;

const FORM_ID = "chat-form";
const FIELD_ID = `${FORM_ID}-message`;

const isChatAction = (value: unknown): value is ChatActionData =>
  typeof value === "object" && value !== null && "chat" in value;

/** Merges messages by id, in room order. */
function merge(current: ChatMessageView[], incoming: ChatMessageView[]): ChatMessageView[] {
  const byId = new Map(current.map((m) => [m._id, m]));
  if (incoming.every((m) => byId.has(m._id))) return current;
  for (const m of incoming) byId.set(m._id, m);
  return [...byId.values()].sort((a, b) => a.seq - b.seq);
}

const NEAR_BOTTOM_PX = 80;
const nearBottom = (el: HTMLElement) => el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;

export function ChatPanel({ chat }: { chat: ChatPanelData }) {
  // A different window of the room (latest vs older) starts a fresh panel.
  return <Panel key={`${chat.paths.record}:${chat.before ?? "latest"}`} chat={chat} />;
}

function Panel({ chat }: { chat: ChatPanelData }) {
  const { paths, viewerId, before } = chat;
  const live = before === null;
  const [messages, setMessages] = useState(chat.messages);
  const [hasOlder, setHasOlder] = useState(chat.hasOlder);
  const hydrated = useHydrated();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const [unseen, setUnseen] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);

  const listRef = useRef<HTMLOListElement>(null);
  const textareaRef = useRef<HTMLTextAreaElement | null>(null);
  const lastSeq = useRef(chat.messages.at(-1)?.seq ?? 0);
  const stickToBottom = useRef(true);
  const keepOffset = useRef<{ height: number; top: number } | null>(null);
  const shownLastSeq = useRef(chat.messages.at(-1)?.seq ?? 0);

  const fetcher = useFetcher<ChatActionData>();
  const actionData = useActionData<unknown>();
  const lastResult = fetcher.data?.chat ?? (isChatAction(actionData) ? actionData.chat : undefined);
  // The message is checked in the browser by the schema the server uses, loaded when the form is
  // first used (docs/decisions/032-pages-at-sea.md): until then, and without JavaScript, the server's
  // answer carries the same messages. No form library: the chat is on every record page's first load.
  const schema = useRef<ChatText | null>(null);
  const loadSchema = () => {
    if (schema.current) return;
    import("~/models/records/chat.schema").then(
      (m) => (schema.current = m.chatText),
      () => undefined, // the link dropped: the server validates
    );
  };
  const [checked, setChecked] = useState<{ for: ChatReply | undefined; errors: string[] } | null>(null);
  /** The message's errors, none ([]), or undefined while the schema has not arrived. */
  const check = (value: string): string[] | undefined => {
    const result = schema.current?.safeParse(value);
    return result && (result.success ? [] : result.error.issues.map((issue) => issue.message));
  };
  // What the browser found since the last answer wins over that answer's errors.
  const shown = checked && checked.for === lastResult ? checked : null;
  const fieldErrors = shown ? shown.errors : (lastResult?.error?.message ?? []);
  const formErrors = shown ? [] : (lastResult?.error?.[""] ?? []);
  const refusedText =
    lastResult?.status === "error" && typeof lastResult.initialValue?.message === "string"
      ? lastResult.initialValue.message
      : undefined;
  const sending = fetcher.state !== "idle";

  const add = useCallback(
    (incoming: ChatMessageView[], from: "poll" | "own" | "page") => {
      if (!incoming.length) return;
      setMessages((current) => merge(current, incoming));
      const newest = incoming.at(-1)!;
      if (newest.seq > lastSeq.current) lastSeq.current = newest.seq;
      const fromOthers = incoming.filter((m) => m.sender._id !== viewerId);
      if (from === "poll" && fromOthers.length) {
        const last = fromOthers.at(-1)!;
        const text = last.message.length > 140 ? `${last.message.slice(0, 140)}…` : last.message;
        setAnnouncement(
          fromOthers.length === 1
            ? `New message from ${last.sender.name}: ${text}`
            : `${fromOthers.length} new messages; the last from ${last.sender.name}: ${text}`,
        );
      }
      if (from === "own") stickToBottom.current = true;
    },
    [viewerId],
  );

  // The page's loaders run again after a post (Remix revalidation): take what they bring.
  useEffect(() => {
    // Merging what the revalidated loader brings into the live list: a sync with outside data.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (live) add(chat.messages, "page");
  }, [chat.messages, live, add]);

  // Our own message, as the action stored it (before the next poll would bring it).
  useEffect(() => {
    if (fetcher.data?.posted) {
      // The action's answer (outside data) joins the list before the next poll would bring it.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      add([fetcher.data.posted], "own");
      // Empty the field and keep the writer in it for the next message.
      if (textareaRef.current) {
        textareaRef.current.value = "";
        textareaRef.current.focus();
      }
    }
  }, [fetcher.data, add]);

  // Start at the newest message.
  useLayoutEffect(() => {
    const el = listRef.current;
    if (el && live) el.scrollTop = el.scrollHeight;
  }, [live]);

  // After each change: keep the view where the reader is (older messages prepended), follow new
  // ones when the reader was at the bottom, or count them when the reader had scrolled up.
  useLayoutEffect(() => {
    const el = listRef.current;
    const newest = messages.at(-1)?.seq ?? 0;
    const arrived = messages.filter((m) => m.seq > shownLastSeq.current && m.sender._id !== viewerId).length;
    shownLastSeq.current = Math.max(shownLastSeq.current, newest);
    if (!el) return;
    if (keepOffset.current) {
      el.scrollTop = keepOffset.current.top + (el.scrollHeight - keepOffset.current.height);
      keepOffset.current = null;
      return;
    }
    if (stickToBottom.current) {
      el.scrollTop = el.scrollHeight;
      setUnseen(0);
    } else if (arrived) {
      setUnseen((n) => n + arrived);
    }
  }, [messages, viewerId]);

  // The poll: only while the tab is visible, one request at a time, at once again after a full batch.
  useEffect(() => {
    if (!live || problem) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    let controller: AbortController | undefined;
    const schedule = (ms = CHAT_POLL_MS) => {
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(tick, ms);
    };
    async function tick() {
      if (stopped || busy) return;
      if (document.visibilityState !== "visible") return; // visibilitychange starts it again
      busy = true;
      controller = new AbortController();
      let again = CHAT_POLL_MS;
      try {
        const response = await fetch(`${paths.poll}?after=${lastSeq.current}`, {
          headers: { Accept: "application/json" },
          signal: controller.signal,
        });
        if (response.ok) {
          const body = (await response.json()) as { messages: ChatMessageView[]; more: boolean };
          add(body.messages, "poll");
          if (body.more) again = 0;
        } else if (response.status === 401) {
          setProblem("Your session has ended: sign in again to keep chatting.");
          stopped = true;
        } else if (response.status === 403 || response.status === 404) {
          setProblem("This chat is no longer available to you.");
          stopped = true;
        }
      } catch {
        // Offline or aborted: try again at the next tick.
      } finally {
        busy = false;
      }
      schedule(again);
    }
    const onVisibility = () => {
      if (document.visibilityState === "visible") schedule(0);
      else clearTimeout(timer);
    };
    document.addEventListener("visibilitychange", onVisibility);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [live, problem, paths.poll, add]);

  const showOlder = async (event: MouseEvent<HTMLAnchorElement>) => {
    const first = messages[0];
    if (!first) return;
    event.preventDefault();
    if (loadingOlder) return;
    setLoadingOlder(true);
    try {
      const response = await fetch(`${paths.poll}?before=${first.seq}`, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      const body = (await response.json()) as { messages: ChatMessageView[]; hasOlder: boolean };
      const el = listRef.current;
      if (el) keepOffset.current = { height: el.scrollHeight, top: el.scrollTop };
      stickToBottom.current = false;
      setMessages((current) => merge(current, body.messages));
      setHasOlder(body.hasOlder);
    } catch {
      // Fall back to the page that works without JavaScript.
      window.location.assign(event.currentTarget.href);
    } finally {
      setLoadingOlder(false);
    }
  };

  const jumpToLatest = () => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    stickToBottom.current = true;
    setUnseen(0);
  };

  const invalid = fieldErrors.length > 0;

  const firstSeq = messages[0]?.seq;

  return (
    <section className="card chat no-print" id="chat" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      {hasOlder && firstSeq !== undefined ? (
        <p className="chat-older">
          <a href={`${paths.record}?chat_before=${firstSeq}#chat`} onClick={showOlder} aria-busy={loadingOlder}>
            {loadingOlder ? "Loading older messages…" : "Show older messages"}
          </a>
        </p>
      ) : null}
      {messages.length === 0 ? (
        <p className="muted chat-empty">No messages yet. Write the first one below.</p>
      ) : (
        <ol
          className="chat-messages"
          ref={listRef}
          aria-label="Messages"
          // Scrollable, so reachable by keyboard (axe: scrollable-region-focusable).
          tabIndex={0}
          onScroll={(event) => {
            stickToBottom.current = nearBottom(event.currentTarget);
            if (stickToBottom.current && unseen) setUnseen(0);
          }}
        >
          {messages.map((m, i) => {
            const mine = m.sender._id === viewerId;
            return (
              <li
                key={m._id}
                id={i === messages.length - 1 ? "chat-end" : undefined}
                className={mine ? "chat-message chat-mine" : "chat-message"}
                data-seq={m.seq}
              >
                <p className="chat-meta">
                  <span className="chat-sender">{mine ? `You (${m.sender.name})` : m.sender.name}</span>{" "}
                  <time dateTime={m.timestamp}>{formatDateTime(m.timestamp)}</time>
                </p>
                {/* Plain text, escaped by React: a message is never HTML. */}
                <p className="chat-text">{m.message}</p>
              </li>
            );
          })}
        </ol>
      )}
      {/* Messages written offline, waiting for the link: filled by app/offline/drafts.ts, never by React. */}
      <ol
        className="chat-messages chat-waiting"
        aria-label="Waiting to send"
        data-chat-waiting={paths.action.split("?")[0]}
        hidden
      />
      {unseen > 0 ? (
        <p className="chat-jump">
          <button type="button" className="button button-small" onClick={jumpToLatest}>
            {unseen === 1 ? "1 new message" : `${unseen} new messages`} — show
          </button>
        </p>
      ) : null}
      {!live ? (
        <p>
          <Link to={`${paths.record}#chat`}>Show the latest messages</Link>
        </p>
      ) : null}
      <div className="visually-hidden" aria-live="polite">
        {announcement}
      </div>
      {problem ? (
        <p className="callout callout-warning" role="alert">
          {problem}
        </p>
      ) : null}
      <FetcherForm
        fetcher={fetcher}
        method="post"
        action={paths.action}
        className="chat-form"
        id={FORM_ID}
        noValidate
        onFocus={loadSchema}
        onPointerDown={loadSchema}
        onSubmit={(event) => {
          if (sending) {
            event.preventDefault();
            return;
          }
          const errors = check(textareaRef.current?.value ?? "");
          if (errors?.length) {
            event.preventDefault();
            setChecked({ for: lastResult, errors });
            textareaRef.current?.focus();
          }
        }}
      >
        <input type="hidden" name="intent" value="chat" />
        {hydrated ? <input type="hidden" name="via" value="js" /> : null}
        <ErrorList id={`${FORM_ID}-error`} errors={formErrors} />
        <div className="field">
          <label htmlFor={FIELD_ID}>Message</label>
          <textarea
            // A refused message comes back as typed; a new answer puts it in place again.
            key={refusedText === undefined ? "chat-message" : `chat-message-${refusedText.length}`}
            id={FIELD_ID}
            name="message"
            defaultValue={refusedText}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${FIELD_ID}-error` : undefined}
            onInput={(event) => {
              // Once an error shows, it follows the text as it is corrected.
              const errors = invalid ? check(event.currentTarget.value) : undefined;
              if (errors) setChecked({ for: lastResult, errors });
            }}
            ref={textareaRef}
            rows={3}
            onKeyDown={(event) => {
              // Ctrl+Enter (or Cmd+Enter) sends; Enter alone is a new line.
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <ErrorList id={`${FIELD_ID}-error`} errors={fieldErrors} />
        </div>
        <div className="form-actions">
          <button
            type="submit"
            className="button button-primary"
            aria-disabled={sending}
            data-pending={sending || undefined}
          >
            {sending ? "Sending…" : "Send"}
          </button>
        </div>
      </FetcherForm>
    </section>
  );
}
