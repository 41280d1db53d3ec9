/**
 * The form every page renders (in place of Remix's `Form`): a write (any method but GET) carries a
 * hidden `idempotencyKey`, fresh for each view of the form, so a submission sent twice (a retry
 * after a lost answer, a double click, a queued draft replayed) applies once
 * (app/web/idempotency.server.ts, docs/decisions/040-replays-apply-once.md). The key changes once
 * a submission of this form has been answered; a submission that got no answer keeps it, so its
 * retry is recognised as the same one.
 */
import { Form as RemixForm, useNavigation, type FormProps, type useFetcher } from "@remix-run/react";
import { forwardRef, useEffect, useRef, useState } from "react";

/** The hidden field's name; the API's header is `Idempotency-Key` (the same key, the same rules). */
export const IDEMPOTENCY_FIELD = "idempotencyKey";

/** 128 random bits as hex (crypto.getRandomValues works on plain http too, unlike randomUUID). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * A key for one form: made when the form is first shown, made again after a submission carrying
 * it was answered (`busy` went from true to false while the form stayed on the page).
 */
export function useIdempotencyKey(busyWith: (key: string) => boolean): string {
  const [key, setKey] = useState(newIdempotencyKey);
  const busy = busyWith(key);
  const wasBusy = useRef(false);
  useEffect(() => {
    // The server's key and the browser's differ at hydration: the browser's own replaces it.
    setKey(newIdempotencyKey());
  }, []);
  useEffect(() => {
    if (busy) wasBusy.current = true;
    else if (wasBusy.current) {
      wasBusy.current = false;
      setKey(newIdempotencyKey());
    }
  }, [busy]);
  return key;
}

export function IdempotencyKeyField({ value }: { value: string }) {
  return <input type="hidden" name={IDEMPOTENCY_FIELD} value={value} suppressHydrationWarning />;
}

const isWrite = (method: string | undefined) => (method ?? "get").toLowerCase() !== "get";

/** Remix's `Form`, with the idempotency key on every write. */
export const Form = forwardRef<HTMLFormElement, FormProps>(function KeyedForm({ children, ...props }, ref) {
  const navigation = useNavigation();
  const key = useIdempotencyKey((current) => navigation.formData?.get(IDEMPOTENCY_FIELD) === current);
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
  const key = useIdempotencyKey((current) => fetcher.formData?.get(IDEMPOTENCY_FIELD) === current);
  const Inner = fetcher.Form;
  return (
    <Inner ref={ref} {...props}>
      {isWrite(props.method) ? <IdempotencyKeyField value={key} /> : null}
      {children}
    </Inner>
  );
});
