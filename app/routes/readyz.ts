import { readiness } from "~/models/ops/readiness.server";

/** GET /readyz: 200 when this instance can serve, 503 (with the reason) when not. */
export async function loader() {
  const state = await readiness();
  return Response.json(
    { status: state.ready ? "ready" : "unavailable", ...state },
    { status: state.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
