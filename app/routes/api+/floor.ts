/**
 * The framework floor for `npm run bench`: a resource route that answers a constant ~2 KB JSON, so
 * the benchmark can set every endpoint beside what Remix costs before any database work. It
 * exists only when BENCH_FLOOR=1 (set by the benchmark on the server it starts); otherwise 404.
 * `?kb=N` answers a constant body of about N KB instead (1 to 1024): the same floor for a response
 * as large as a list, to tell the cost of moving the bytes from the cost of producing them.
 */
import { errorResponse } from "~/utils/http.server";

const items = Array.from({ length: 14 }, (_, i) => ({
  _id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  serial_num: `${i + 1}-2025`,
  status: "abcdef"[i % 6],
  completed: false,
  title: "Constant payload for the framework floor",
}));
const BODY = JSON.stringify({ status: 200, data: items });
const sized = new Map<number, string>();

function bodyOf(kb: number): string {
  let body = sized.get(kb);
  if (!body) {
    const copies = Math.max(1, Math.round((kb * 1024) / BODY.length));
    body = JSON.stringify({ status: 200, data: Array.from({ length: copies }, () => items).flat() });
    sized.set(kb, body);
  }
  return body;
}

export function loader({ request }: { request: Request }) {
  if (process.env.BENCH_FLOOR !== "1") return errorResponse(404, "Not found");
  const kb = Number(new URL(request.url).searchParams.get("kb") ?? "");
  const body = Number.isInteger(kb) && kb >= 1 && kb <= 1024 ? bodyOf(kb) : BODY;
  return new Response(body, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
