import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

export async function loader() {
  const headers = { "Cache-Control": "no-store" };
  try {
    await getDb().execute(sql`select 1`);
    return Response.json({ status: "ok" }, { headers });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers });
  }
}
