/**
 * The framework floor for `npm run bench`: a resource route that answers a constant ~2 KB JSON, so
 * the benchmark can set every endpoint beside what Remix costs before any database work. It
 * exists only when BENCH_FLOOR=1 (set by the benchmark on the server it starts); otherwise 404.
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

export function loader() {
  if (process.env.BENCH_FLOOR !== "1") return errorResponse(404, "Not found");
  return new Response(BODY, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}
