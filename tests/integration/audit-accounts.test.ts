/**
 * Accounts against their trail (docs/decisions/025-keyed-audit-chain.md, app/models/audit/audit-account.server.ts):
 * every change of a person's role, department, access, position or active flag is one keyed entry
 * of their chain, written with the change; `verifyAuditTrail` finds a right changed in the users
 * table behind the app's back, an account inserted there, and one deleted in the trail that exists;
 * accounts older than the trail are recorded once at start and held to it from then on.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { verifyAuditTrail, type BrokenLink } from "~/models/audit/audit.server";
import { ACCOUNT_RECORDED } from "~/models/audit/audit-account.server";
import { adoptAccountRecords, deleteUser, updateUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";

/** No seal folder: these tests are about accounts. */
const noSeals = path.join("/nonexistent", randomUUID());

async function problemsOf(userId: string): Promise<BrokenLink[]> {
  return (await verifyAuditTrail(getDb(), noSeals)).broken.filter((b) => b.recordId === userId);
}

const chainOf = (userId: string) =>
  getDb().execute<{ seq: number; action: string; from_value: string | null; to_value: string | null; key_id: string }>(
    sql`select seq, action, from_value, to_value, key_id from audit_entries
      where record_kind = 'user' and record_id = ${userId} order by seq`,
  );

const behindTheAppsBack = (statement: ReturnType<typeof sql>) => getDb().execute(statement);

describe("accounts against their audit trail", () => {
  it("records each change of a right as one keyed entry of the person's chain, and the account verifies", async () => {
    const admin = await makeAdmin();
    const person = await makeUser({ department: "engineering" });
    const before = (await chainOf(person._id)).length;
    await updateUser(admin, {
      _id: person._id,
      role: "admin",
      department: "hseq",
      access: "full",
      position: "Director HSEQ",
    });
    await updateUser(admin, { _id: person._id, active: false });
    await updateUser(admin, { _id: person._id, position: null, role: "user" });
    const chain = await chainOf(person._id);
    expect(chain.slice(before).map((e) => [e.action, e.from_value, e.to_value])).toEqual([
      ["Changed role", "user", "admin"],
      ["Changed department", "engineering", "hseq"],
      ["Changed access", "standard", "full"],
      ["Changed position", null, "Director HSEQ"],
      ["Deactivated", "true", "false"],
      ["Changed role", "admin", "user"],
      ["Changed position", "Director HSEQ", null],
    ]);
    expect(chain.every((e) => /^[0-9a-f]{16}$/.test(e.key_id))).toBe(true);
    expect(await problemsOf(person._id)).toEqual([]);
  });

  it("finds a role, access, position, department or active flag changed with SQL behind the app's back", async () => {
    const people = await Promise.all([1, 2, 3, 4, 5].map(() => makeUser({ department: "engineering" })));
    const [promoted, widened, placed, moved, revived] = people as [
      (typeof people)[0],
      (typeof people)[0],
      (typeof people)[0],
      (typeof people)[0],
      (typeof people)[0],
    ];
    const admin = await makeAdmin();
    await updateUser(admin, { _id: revived._id, active: false });
    for (const person of people) expect(await problemsOf(person._id)).toEqual([]);

    await behindTheAppsBack(sql`update users set role = 'admin' where id = ${promoted._id}`);
    await behindTheAppsBack(sql`update users set access = 'full' where id = ${widened._id}`);
    await behindTheAppsBack(sql`update users set position = 'President' where id = ${placed._id}`);
    await behindTheAppsBack(sql`update users set department = 'hseq' where id = ${moved._id}`);
    await behindTheAppsBack(sql`update users set active = true where id = ${revived._id}`);

    const reasons = async (id: string) => (await problemsOf(id)).map((p) => [p.kind, p.reason]);
    expect(await reasons(promoted._id)).toEqual([
      ["user", `its role is "admin", but its audit trail last set it to "user" (changed behind the app's back)`],
    ]);
    expect(await reasons(widened._id)).toEqual([
      ["user", `its access is "full", but its audit trail last set it to "standard" (changed behind the app's back)`],
    ]);
    expect(await reasons(placed._id)).toEqual([
      ["user", `its position is "President", but its audit trail last set it to none (changed behind the app's back)`],
    ]);
    expect(await reasons(moved._id)).toEqual([
      [
        "user",
        `its department is "hseq", but its audit trail last set it to "engineering" (changed behind the app's back)`,
      ],
    ]);
    expect(await reasons(revived._id)).toEqual([
      ["user", `its active is "true", but its audit trail last set it to "false" (changed behind the app's back)`],
    ]);

    // Put back as the trail says, each account verifies again: the check compares, it does not remember.
    await behindTheAppsBack(sql`update users set role = 'user' where id = ${promoted._id}`);
    expect(await problemsOf(promoted._id)).toEqual([]);
  });

  it("finds an account inserted with SQL, and one the trail deleted that exists again", async () => {
    const [inserted] = await getDb().execute<{ id: string }>(sql`insert into users
      (name, email, password_hash, role, department, access, onboarded)
      values ('Nobody', ${`nobody-${randomUUID()}@example.com`}, 'x', 'admin', 'hseq', 'full', true) returning id`);
    expect((await problemsOf(inserted!.id)).map((p) => p.reason)).toEqual([
      "the account has no audit entry at all (made behind the app's back)",
    ]);

    // A deleted account copied back in (its old row, from a backup say) under its old id.
    const admin = await makeAdmin();
    const gone = await makeUser();
    const [row] = await getDb().execute<Record<string, unknown>>(sql`select * from users where id = ${gone._id}`);
    await deleteUser(admin, gone._id);
    await behindTheAppsBack(
      sql`insert into users select * from json_populate_record(null::users, ${JSON.stringify(row)})`,
    );
    expect((await problemsOf(gone._id)).map((p) => p.reason)).toEqual([
      "the account exists, but its last audit entry deleted it",
    ]);
    await behindTheAppsBack(sql`delete from users where id in (${inserted!.id}, ${gone._id})`);
  });

  it("records once, at start, the accounts older than their trail; from then on they are held to it", async () => {
    // An account from before the trail: no entry at all. The start's adoption is claimed once per
    // database, so this test takes the claim back to run it again.
    const [old] = await getDb().execute<{ id: string }>(sql`insert into users
      (name, email, password_hash, role, department, access, position, onboarded)
      values ('Old Timer', ${`old-${randomUUID()}@example.com`}, 'x', 'user', 'fleet', 'standard', 'President', true)
      returning id`);
    expect(await problemsOf(old!.id)).toHaveLength(1);
    await getDb().execute(sql`delete from job_runs where queue = 'audit-adopt' and key = 'accounts'`);
    expect(await adoptAccountRecords()).toBeGreaterThanOrEqual(1);
    expect(await adoptAccountRecords()).toBe(0);
    const chain = await chainOf(old!.id);
    expect(chain.map((e) => e.action)).toEqual([ACCOUNT_RECORDED]);
    expect(await problemsOf(old!.id)).toEqual([]);

    await behindTheAppsBack(sql`update users set position = 'Director HSEQ' where id = ${old!.id}`);
    expect((await problemsOf(old!.id)).map((p) => p.reason)).toEqual([
      `its position is "Director HSEQ", but its audit trail last set it to "President" (changed behind the app's back)`,
    ]);
    await behindTheAppsBack(sql`update users set position = 'President' where id = ${old!.id}`);
  });
});
