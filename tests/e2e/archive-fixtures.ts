/**
 * Fixtures for the legacy archive pages: a writer (HSEQ) and a reader (standard user) made through
 * the real API, browser pages signed in as them (JavaScript on or off as the project says), and
 * records added through /api/oldMoc and /api/oldPcr.
 */
import { randomBytes } from "node:crypto";
import { expect, test as base, type Person } from "./pcr-fixtures";

export { expect, jsEnabled, ready } from "./pcr-fixtures";

export type Kind = "moc" | "pcr";
export const KINDS = [
  { kind: "moc" as Kind, segment: "mocs", api: "/api/oldMoc", label: "legacy MOC", plural: "legacy MOCs" },
  { kind: "pcr" as Kind, segment: "pcrs", api: "/api/oldPcr", label: "legacy PCR", plural: "legacy PCRs" },
];

export type LegacyRecord = {
  _id: string;
  serial_num: string;
  title: string;
  status: string;
  date_raised: string;
  date_closed: string | null;
  [key: string]: unknown;
};

export const test = base.extend<{
  /** A short random tag to keep one test's records apart from the others'. */
  tag: string;
  writer: Person;
  reader: Person;
  /** POST /api/old{Moc,Pcr} as the admin. */
  addRecord: (kind: Kind, fields: Record<string, unknown>) => Promise<LegacyRecord>;
  /** GET /api/old{Moc,Pcr} as the admin, only the records whose serial holds `tag`. */
  recordsTagged: (kind: Kind, tag: string) => Promise<LegacyRecord[]>;
}>({
  // eslint-disable-next-line no-empty-pattern
  tag: async ({}, use) => use(randomBytes(3).toString("hex")),
  writer: async ({ createUser, tag }, use) => {
    const user = await createUser({ name: `Hilde Hseq ${tag}`, department: "hseq" });
    await use({ ...user, token: user.token! });
  },
  reader: async ({ createUser, tag }, use) => {
    const user = await createUser({ name: `Rolf Reader ${tag}`, department: "operations", access: "standard" });
    await use({ ...user, token: user.token! });
  },
  addRecord: async ({ request, adminToken }, use) => {
    await use(async (kind, fields) => {
      const response = await request.post(KINDS.find((k) => k.kind === kind)!.api, {
        headers: { Authorization: `Bearer ${adminToken}` },
        data: { originator_name: "Jan de Vries", date_raised: "2014-03-02", ...fields },
      });
      expect(response.status(), await response.text()).toBe(200);
      return ((await response.json()) as { data: LegacyRecord }).data;
    });
  },
  recordsTagged: async ({ request, adminToken }, use) => {
    await use(async (kind, tag) => {
      const response = await request.get(KINDS.find((k) => k.kind === kind)!.api, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(response.status()).toBe(200);
      const all = ((await response.json()) as { data: LegacyRecord[] }).data;
      return all.filter((r) => r.serial_num.includes(tag));
    });
  },
});
