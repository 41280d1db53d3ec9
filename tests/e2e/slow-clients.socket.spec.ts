/**
 * Slow clients against a real server process over loopback sockets
 * (docs/decisions/027-slow-clients.md): twelve clients that stop reading a CSV export, twelve
 * uploads that trickle in, and a long PDF; meanwhile `/healthz` must answer within a second and a
 * sign-in within three, and a client that stalls past CLIENT_STALL_SECONDS is cut. The instance
 * runs on a database of its own (the rows it needs would disturb the other specs), with the
 * default pool of ten connections. No browser: the clients are raw sockets (`net`), as an attacker's would be.
 */
import { expect, test } from "@playwright/test";
import path from "node:path";
import postgres from "postgres";
import { adminQuery, withDatabase } from "../helpers/databases";
import { newMocBody } from "../helpers/moc";
import { rawConnection } from "../helpers/raw-http";
import { e2eAdminUrl, e2eDatabaseUrl, startSecondInstance, type Instance } from "./second-instance";

test.describe.configure({ mode: "serial", timeout: 240_000 });

const STALL_SECONDS = 4;
const ADMIN = { email: "slow-admin@e2e.test", password: "slow-admin-password" };
const PEOPLE = 6; // two exports or uploads each: twelve slow clients
const ROWS = 6_000; // about 9 MB of CSV: more than loopback's socket buffers hold

let instance: Instance;
let databaseUrl: string;
let serverUrl: string;
let databaseName: string;
let people: { _id: string; cookie: string; token: string }[] = [];
let mocId: string;

const host = () => new URL(instance.url);

async function json(response: Response) {
  const text = await response.text();
  try {
    return JSON.parse(text) as { token?: string; data?: { _id: string }; message?: string };
  } catch {
    throw new Error(`${response.status}: ${text.slice(0, 300)}`);
  }
}

/** POST /login as a JSON client: the session token, the cookie, and how long it took. */
async function signIn(email: string, password: string) {
  const started = performance.now();
  const response = await fetch(`${instance.url}/login`, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password }),
  });
  const body = await json(response);
  const ms = performance.now() - started;
  expect(response.status, JSON.stringify(body)).toBe(200);
  const cookie = response.headers.get("set-cookie")?.match(/session=([^;]+)/)?.[1];
  return { token: body.token!, cookie: `session=${cookie}`, ms };
}

/**
 * A sign-in's bound while the slow clients run. Argon2 is CPU work, 40 ms on a quiet machine and
 * 0.3-0.8 s on this shared 2-core one beside the other browser tests (a bound of one second failed
 * a CI run at 1,043 ms); a starved sign-in waits for a pooled connection until the slow clients
 * are cut, or for minutes before decision 027. `/healthz` (no argon2) keeps its one second.
 */
const SIGN_IN_MS = 3_000;

async function healthzMs(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${instance.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  await response.text();
  expect(response.status).toBe(200);
  return performance.now() - started;
}

/** /healthz `count` times and one sign-in, while the slow clients run: within a second, and SIGN_IN_MS. */
async function expectResponsive(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    times.push(await healthzMs());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const login = await signIn(ADMIN.email, ADMIN.password);
  console.log(
    `healthz while slow clients run: max ${Math.max(...times).toFixed(0)} ms of ${count}; sign-in ${login.ms.toFixed(0)} ms`,
  );
  expect(Math.max(...times)).toBeLessThan(1_000);
  expect(login.ms).toBeLessThan(SIGN_IN_MS);
  return times;
}

/** A raw connection sending `head` (and `body`); with `stopReading`, see rawConnection. */
function rawClient(head: string, body = "", stopReading = false) {
  const client = rawConnection(instance.url, { stopReading });
  client.socket.write(head + body);
  return client;
}

const get = (pathAndQuery: string, cookie: string) =>
  `GET ${pathAndQuery} HTTP/1.1\r\nHost: ${host().host}\r\nCookie: ${cookie}\r\nAccept-Encoding: identity\r\n\r\n`;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  // A database of its own, next to the e2e one.
  const e2e = new URL(await e2eDatabaseUrl());
  databaseName = `cm_slow_${e2e.pathname.slice(1)}`.slice(0, 60);
  // Made by the superuser, owned by the app's role, which the instance connects as.
  serverUrl = await e2eAdminUrl();
  await adminQuery(serverUrl, async (sql) => {
    await sql.unsafe(`drop database if exists ${databaseName} with (force)`);
    await sql.unsafe(`create database ${databaseName} owner ${e2e.username}`);
  });
  databaseUrl = withDatabase(e2e.href, databaseName);
  instance = await startSecondInstance({
    databaseUrl,
    env: {
      ...Object.fromEntries(Object.entries(ADMIN).map(([k, v]) => [`ADMIN_${k.toUpperCase()}`, v])),
      CLIENT_STALL_SECONDS: String(STALL_SECONDS),
      PDF_TIME_SECONDS: "90",
      DATA_DIR: path.resolve(`.data/${databaseName}`),
    },
  });
  const admin = await signIn(ADMIN.email, ADMIN.password);
  people = [];
  for (let i = 0; i < PEOPLE; i++) {
    const email = `slow-${i}-${Date.now()}@example.com`;
    const created = await fetch(`${instance.url}/api/users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: `Slow Client ${i}`,
        email,
        password: `first-${i}-password`,
        role: "admin",
        department: "engineering",
        access: "full",
        position: null,
      }),
    });
    expect(created.status).toBe(201);
    const { _id } = (await json(created)).data!;
    const first = await signIn(email, `first-${i}-password`);
    const patched = await fetch(`${instance.url}/api/user`, {
      method: "PATCH",
      headers: { Authorization: `Bearer ${first.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ password: "slow-client-password", currentPassword: `first-${i}-password` }),
    });
    expect(patched.status).toBe(200);
    people.push({ _id, cookie: first.cookie, token: first.token });
  }
  const created = await fetch(`${instance.url}/api/newmoc`, {
    method: "POST",
    headers: { Authorization: `Bearer ${people[0]!.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(newMocBody(people[1]!)),
  });
  const moc = await json(created);
  expect(created.status, JSON.stringify(moc)).toBe(200);
  mocId = moc.data!._id;
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await sql.unsafe(`insert into legacy_mocs (serial_num, title, originator_name, date_raised, description)
    select g || '-1998', 'Archived change ' || g, 'Jan de Vries', '1998-01-01', repeat('Pump overhaul. ', 100)
    from generate_series(1, ${ROWS}) g`);
  await sql.end();
});

test.afterAll(async () => {
  await instance?.stop();
  if (databaseName) {
    await adminQuery(serverUrl, (sql) => sql.unsafe(`drop database if exists ${databaseName} with (force)`));
  }
});

test("twelve clients that stop reading a CSV export: the server keeps answering, a third export is 429, a stalled reader is cut", async () => {
  // A client that reads: the whole file, to know its length.
  const whole = await fetch(`${instance.url}/api/oldMoc?format=csv`, { headers: { Cookie: people[0]!.cookie } });
  expect(whole.status).toBe(200);
  const full = (await whole.arrayBuffer()).byteLength;
  const quiet = await signIn(ADMIN.email, ADMIN.password);
  console.log(
    `before the slow clients: /healthz ${(await healthzMs()).toFixed(0)} ms, sign-in ${quiet.ms.toFixed(0)} ms`,
  );
  expect(full).toBeGreaterThan(8_000_000);

  // Each reads its first bytes, then nothing more.
  const slow = people.flatMap((person) =>
    [0, 1].map(() => rawClient(get("/api/oldMoc?format=csv", person.cookie), "", true)),
  );
  await Promise.all(slow.map((c) => c.firstData));
  for (const client of slow) expect(client.text()).toMatch(/^HTTP\/1\.1 200/);
  const third = await fetch(`${instance.url}/api/oldMoc?format=csv`, { headers: { Cookie: people[0]!.cookie } });
  expect(third.status).toBe(429);
  expect((await json(third)).message).toMatch(/You have 2 CSV exports running already/);

  await expectResponsive(10);

  // The exports read the list to its end without waiting on their clients, then let go: no
  // connection stays in a transaction (before, all ten sat idle in one for as long as the clients).
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const inTransaction = async () =>
    (
      await sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`
    )[0]!.n as number;
  await expect.poll(inTransaction, { timeout: 90_000, intervals: [500] }).toBe(0);
  await sql.end();

  // Past the stall deadline the server has cut them: reading on, each answer stops short.
  await new Promise((resolve) => setTimeout(resolve, (STALL_SECONDS + 2) * 1000));
  for (const client of slow) client.socket.resume();
  await Promise.all(slow.map((c) => c.ended));
  for (const client of slow) {
    expect(client.text().length).toBeLessThan(full);
    expect(client.text().endsWith("\r\n0\r\n\r\n")).toBe(false);
  }
  // Their slots are free again.
  const again = await fetch(`${instance.url}/api/oldMoc?format=csv`, { headers: { Cookie: people[0]!.cookie } });
  expect(again.status).toBe(200);
  await again.body!.cancel();
});

test("twelve uploads that trickle in: the server keeps answering, a third is 429, a stalled one gets 408", async () => {
  const boundary = "----slowupload";
  const head = (cookie: string) =>
    `POST /mocs/${mocId}/attachments HTTP/1.1\r\nHost: ${host().host}\r\nCookie: ${cookie}\r\n` +
    `Origin: ${instance.url}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 200000\r\n\r\n`;
  const preamble = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Slow.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`;
  const slow = people.flatMap((person) => [0, 1].map(() => rawClient(head(person.cookie), preamble)));
  // A byte a second from each, for a while.
  const trickle = setInterval(() => {
    for (const client of slow) if (!client.closed()) client.socket.write("x");
  }, 1_000);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const third = rawClient(head(people[0]!.cookie), preamble);
    await third.ended;
    expect(third.text()).toMatch(/^HTTP\/1\.1 429/);
    expect(third.text()).toMatch(/You have 2 uploads in progress already/);
    third.socket.destroy();

    await expectResponsive(10);
  } finally {
    clearInterval(trickle);
  }
  // Stopped sending: past the deadline each gets a 408 and the connection closes.
  await Promise.all(slow.map((c) => c.ended));
  for (const client of slow) expect(client.text()).toMatch(/^HTTP\/1\.1 408/);
  expect(slow[0]!.text()).toMatch(/stopped arriving/);
});

test("a long MOC's PDF is made off the request thread: /healthz p99 stays under a second, a sign-in under three", async () => {
  const paragraph = `<p>${"The hull valve on the starboard side is replaced and tested. ".repeat(16)}</p>`;
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await sql`update moc_forms set data = jsonb_set(data, '{description-of-change,value}', to_jsonb(${paragraph.repeat(800)}::text))
    where moc_id = ${mocId} and kind = 'originator'`;
  await sql.end();

  const started = performance.now();
  const pdf = fetch(`${instance.url}/mocs/${mocId}/pdf`, { headers: { Cookie: people[0]!.cookie } }).then(
    async (response) => ({ status: response.status, bytes: Buffer.from(await response.arrayBuffer()) }),
  );
  let done = false;
  void pdf.finally(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const twice = await fetch(`${instance.url}/mocs/${mocId}/pdf`, { headers: { Cookie: people[0]!.cookie } });
  expect(twice.status).toBe(429);
  await twice.body?.cancel();

  const times: number[] = [];
  let signInMs = 0;
  // At least ten reads: a PDF made quickly on a quiet machine leaves fewer while it runs, and the
  // reads after it cost nothing against the p99 (a blocked event loop shows in the ones during it).
  while (!done || times.length < 10) {
    times.push(await healthzMs());
    if (times.length === 10) signInMs = (await signIn(ADMIN.email, ADMIN.password)).ms;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { status, bytes } = await pdf;
  const took = performance.now() - started;
  expect(status).toBe(200);
  const pages = (bytes.toString("latin1").match(/\/Type \/Page\b/g) ?? []).length;
  const sorted = [...times].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  console.log(
    `PDF of ${pages} pages (${(bytes.length / 1024 / 1024).toFixed(1)} MB) in ${(took / 1000).toFixed(1)} s; ` +
      `/healthz during it: ${times.length} requests, p50 ${p(0.5).toFixed(0)} ms, p99 ${p(0.99).toFixed(0)} ms, ` +
      `max ${sorted.at(-1)!.toFixed(0)} ms; sign-in ${signInMs.toFixed(0)} ms`,
  );
  expect(pages).toBeGreaterThan(120);
  expect(times.length).toBeGreaterThanOrEqual(10);
  expect(p(0.99)).toBeLessThan(1_000);
  expect(signInMs).toBeGreaterThan(0);
  expect(signInMs).toBeLessThan(SIGN_IN_MS);
});
