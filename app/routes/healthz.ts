/**
 * GET /healthz: liveness. It answers while the process serves requests, without asking the
 * database: an unreachable database is for GET /readyz to report (503), and a liveness check that
 * failed with it would have every instance restarted for what a restart does not fix.
 */
export function loader() {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
