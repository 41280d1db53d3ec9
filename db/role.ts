/**
 * The database role the app connects as. In production it must not be a superuser, nor able to
 * become one: a superuser can switch the audit trail's triggers off (or run in replica mode), read
 * the server's files and replace the database's functions. docs/security.md, "What the audit trail
 * proves"; docs/decisions/025-keyed-audit-chain.md.
 */
import postgres from "postgres";

/** The role's name when it is (or can become) a superuser, else null. */
export async function superuserRole(url: string): Promise<string | null> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ name: string; superuser: boolean }[]>`
      select current_user as name, exists (select 1 from pg_roles r
        where r.rolsuper and pg_has_role(current_user, r.oid, 'MEMBER')) as superuser`;
    return row?.superuser ? row.name : null;
  } finally {
    await sql.end();
  }
}

export const superuserRefusal = (role: string) =>
  `Refusing to start in production as the database superuser "${role}": connect as a role without SUPERUSER ` +
  "that owns the app's database (a superuser can switch off the audit trail's triggers and read the server's files). " +
  'See docs/security.md, "What the audit trail proves".';
