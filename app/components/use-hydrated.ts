import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and during hydration, true once React runs in the browser: the
 * switch from a form's no-JavaScript fallback to its enhanced version, without a state update in
 * an effect (the server snapshot is what hydration must match).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
