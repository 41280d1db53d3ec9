import { flashStorage as storage, type Flash } from "./cookies.server";

export type { Flash };

/** A Set-Cookie header that shows `message` once on the next page. */
export async function flashCookie(flash: Flash): Promise<string> {
  const store = storage();
  const session = await store.getSession();
  session.flash("flash", flash);
  return store.commitSession(session);
}

/** Reads (and consumes) the flash message of this request. */
export async function readFlash(request: Request): Promise<{ flash: Flash | null; setCookie: string | null }> {
  const cookie = request.headers.get("Cookie");
  if (!cookie?.includes("flash=")) return { flash: null, setCookie: null };
  const store = storage();
  const session = await store.getSession(cookie);
  const flash = (session.get("flash") as Flash | undefined) ?? null;
  return { flash, setCookie: await store.commitSession(session) };
}

/** Redirect after a successful post, with a message for the next page. */
export async function redirectWithFlash(to: string, flash: Flash, headers: HeadersInit = {}): Promise<Response> {
  const out = new Headers(headers);
  out.append("Set-Cookie", await flashCookie(flash));
  out.set("Location", to);
  return new Response(null, { status: 302, headers: out });
}
