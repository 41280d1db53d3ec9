/**
 * The form every page renders (in place of Remix's `Form`): a write (any method but GET) carries a
 * hidden `idempotencyKey`, fresh for each view of the form, so a submission sent twice (a retry
 * after a lost answer, a double click, a queued draft replayed) applies once
 * (app/web/idempotency.server.ts, docs/decisions/040-replays-apply-once.md). The key changes once
 * a submission has been answered; a submission that got no answer keeps it, so its retry is
 * recognised as the same one.
 */
import { Form as RemixForm, useNavigation, type FormProps, type useFetcher } from "@remix-run/react";
import { forwardRef, useState } from "react";

/** The hidden field's name; the API's header is `Idempotency-Key` (the same key, the same rules). */
export const IDEMPOTENCY_FIELD = "idempotencyKey";

/** 128 random bits as hex (crypto.getRandomValues works on plain http too, unlike randomUUID). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * A key for one form: made when the form is first shown, made again once a submission on the page
 * (`busy`) has been answered. Any form's key may change then (a form not submitted loses nothing);
 * the one submitted keeps its key until its answer arrives, so a second click is the same request.
 * The server's key and the browser's differ at hydration: the field keeps the server's (it is what
 * the page shows and sends) until the first answer replaces it.
 */
export function useIdempotencyKey(busy: boolean, answer?: { value: unknown }): string {
  const value = answer?.value;
  const [state, setState] = useState(() => ({ key: newIdempotencyKey(), busy, value, answered: false }));
  if (state.busy !== busy || state.value !== value) {
    const started = !state.busy && busy;
    // A fetcher's answer arrives while it is still busy (revalidating); one that got no answer
    // (the link dropped) leaves its data as it was, and the key stays: sending again is the same request.
    const answered = !started && (state.answered || state.value !== value);
    const renew = state.busy && !busy && (answer === undefined || answered);
    setState({ key: renew ? newIdempotencyKey() : state.key, busy, value, answered: renew ? false : answered });
  }
  return state.key;
}

export function IdempotencyKeyField({ value }: { value: string }) {
  return <input type="hidden" name={IDEMPOTENCY_FIELD} value={value} suppressHydrationWarning />;
}

const isWrite = (method: string | undefined) => (method ?? "get").toLowerCase() !== "get";

/** Remix's `Form`, with the idempotency key on every write. */
export const Form = forwardRef<HTMLFormElement, FormProps>(function KeyedForm({ children, ...props }, ref) {
  const navigation = useNavigation();
  const key = useIdempotencyKey(navigation.state !== "idle" && navigation.formData !== undefined);
  return (
    <RemixForm ref={ref} {...props}>
      {isWrite(props.method) ? <IdempotencyKeyField value={key} /> : null}
      {children}
    </RemixForm>
  );
});

type Fetcher = ReturnType<typeof useFetcher>;

/** A fetcher's `Form`, with the idempotency key (the chat's message form). */
export const FetcherForm = forwardRef<HTMLFormElement, FormProps & { fetcher: Fetcher }>(function FetcherForm(
  { fetcher, children, ...props },
  ref,
) {
  const key = useIdempotencyKey(fetcher.state !== "idle", { value: fetcher.data });
  const Inner = fetcher.Form;
  return (
    <Inner ref={ref} {...props}>
      {isWrite(props.method) ? <IdempotencyKeyField value={key} /> : null}
      {children}
    </Inner>
  );
});
