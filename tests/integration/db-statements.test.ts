/**
 * Statements built once (statementOnce in db/client.ts): drizzle builds the SQL text once, and each
 * call runs it on the executor it names. Inside a transaction that must be the transaction's own
 * connection: the statement sees the transaction's writes, and a rollback takes back what it
 * wrote. Every workflow step relies on it (app/models/moc/moc-workflow.server.ts).
 */
import { eq, sql } from "drizzle-orm";
import { integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb, statementOnce, statementOnceBy } from "~/utils/db.server";

const probes = pgTable("statement_once_probes", {
  id: integer("id").primaryKey(),
  label: text("label").notNull(),
  extra: jsonb("extra"),
});

const insertProbe = statementOnce((db) =>
  db
    .insert(probes)
    .values({ id: sql.placeholder("id"), label: sql.placeholder("label") })
    .prepare("insert_probe"),
);
const probeById = statementOnce((db) =>
  db
    .select({ id: probes.id, label: probes.label })
    .from(probes)
    .where(eq(probes.id, sql.placeholder("id")))
    .prepare("probe_by_id"),
);
/** The pattern of the step's move: nulls built into the statement, values as placeholders. */
const setExtra = statementOnceBy((db, isNull: boolean) =>
  db
    .update(probes)
    .set({ extra: isNull ? null : (sql.placeholder("extra") as never) })
    .where(eq(probes.id, sql.placeholder("id")))
    .prepare(isNull ? "clear_probe_extra" : "set_probe_extra"),
);

class Rollback extends Error {}

beforeAll(async () => {
  await getDb().execute(
    sql`create table statement_once_probes (id integer primary key, label text not null, extra jsonb)`,
  );
});

const labelOf = async (id: number) => (await probeById(getDb()).execute({ id }))[0]?.label ?? null;

describe("a statement built once", () => {
  it("runs on the pool", async () => {
    await insertProbe(getDb()).execute({ id: 1, label: "pool" });
    expect(await labelOf(1)).toBe("pool");
  });

  it("runs inside a transaction on its connection: it sees the transaction's writes, a rollback takes its own back", async () => {
    let seenInside: string | null = null;
    await expect(
      getDb().transaction(async (tx) => {
        await tx.insert(probes).values({ id: 2, label: "written by the builder" });
        seenInside = (await probeById(tx).execute({ id: 2 }))[0]?.label ?? null;
        await insertProbe(tx).execute({ id: 3, label: "written by the statement" });
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(seenInside).toBe("written by the builder");
    expect(await labelOf(2)).toBeNull();
    expect(await labelOf(3)).toBeNull();
  });

  it("is built once and reused across executors, each call on its own", async () => {
    expect(probeById(getDb())).toBe(probeById(getDb()));
    await getDb().transaction(async (tx) => {
      const inTx = probeById(tx);
      expect(inTx).not.toBe(probeById(getDb()));
      await insertProbe(tx).execute({ id: 4, label: "committed" });
      expect((await inTx.execute({ id: 4 }))[0]?.label).toBe("committed");
    });
    expect(await labelOf(4)).toBe("committed");
  });

  it("writes a null built into it as SQL NULL; a JSON value through a placeholder as JSON", async () => {
    await setExtra(getDb(), false).execute({ id: 1, extra: { note: "kept" } });
    const [withValue] = await getDb().execute<{ extra: unknown; kind: string }>(
      sql`select extra, jsonb_typeof(extra) as kind from statement_once_probes where id = 1`,
    );
    expect(withValue).toEqual({ extra: { note: "kept" }, kind: "object" });
    await setExtra(getDb(), true).execute({ id: 1 });
    const [cleared] = await getDb().execute<{ is_null: boolean }>(
      sql`select extra is null as is_null from statement_once_probes where id = 1`,
    );
    expect(cleared!.is_null).toBe(true);
  });
});
