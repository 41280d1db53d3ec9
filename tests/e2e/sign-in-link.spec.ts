/**
 * A locked-out owner signs in with a one-time link by email (app/models/sign-in/sign-in-link.server.ts),
 * with JavaScript on and off: the sign-in page says how, the link page asks for the email, the
 * emailed link signs in once.
 */
import postgres from "postgres";
import { expect, test } from "./fixtures";
import { e2eDatabaseUrl } from "./second-instance";

async function withDb<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(await e2eDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

test("a locked-out owner gets in with the emailed one-time link", async ({ page, createUser }) => {
  const user = await createUser();
  // Somebody elsewhere spent the account's whole failure budget (as five networks guessing would).
  await withDb(
    (sql) => sql`
      insert into rate_limits (key, points, reset_at)
      select 'login-account:user:' || id::text, 1000, now() + interval '15 minutes' from users where email = ${user.email}
      on conflict (key) do update set points = excluded.points, reset_at = excluded.reset_at`,
  );

  await page.goto("/login");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Too many failed password attempts")).toBeVisible();

  await page.getByRole("link", { name: "Email me a one-time sign-in link" }).click();
  await expect(page).toHaveURL(/\/login\/link$/);
  await expect(page.getByRole("heading", { name: "Sign in with a link" })).toBeVisible();
  await page.getByLabel("Email").fill(user.email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("status")).toContainText("a sign-in link is on its way");

  const link = await withDb(async (sql) => {
    const rows = await sql<{ text: string }[]>`select text from email_messages where to_email = ${user.email}`;
    return rows.map((r) => r.text.match(/https?:\/\/\S+\/login\/link\?token=[A-Za-z0-9_-]+/)?.[0]).find(Boolean);
  });
  expect(link).toBeTruthy();

  await page.goto(link!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: user.name })).toBeVisible();

  // Once only.
  await page.goto(link!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("This sign-in link cannot be used")).toBeVisible();
  await expect(page.getByLabel("Email")).toBeVisible();
});
