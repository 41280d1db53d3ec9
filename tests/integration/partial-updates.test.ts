/**
 * A partial update changes only what it names (docs/decisions/031-api-contract.md, docs/api-contract.md
 * "Conventions"): every partial schema of the API adds nothing the client did not send (zod's
 * `.partial()` keeps `.default()`s, which reset omitted fields: app/models/shared/partial-update.ts),
 * and, through the API, every PUT and PATCH of the API document, sent one field, changes that
 * field and keeps every other one (issue 40, finding 11).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as implementerRoute from "~/routes/api+/implementer";
import * as oldMocRoute from "~/routes/api+/oldMoc";
import * as oldMocItemRoute from "~/routes/api+/oldMoc.$id";
import * as oldPcrRoute from "~/routes/api+/oldPcr";
import * as oldPcrItemRoute from "~/routes/api+/oldPcr.$id";
import * as pcrRoute from "~/routes/api+/pcr";
import * as pcrItemRoute from "~/routes/api+/pcr.$id";
import * as reviewRoute from "~/routes/api+/year-end-review";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as userRoute from "~/routes/api+/user";
import * as userFromDatabaseRoute from "~/routes/api+/UserFromDatabase";
import * as usersRoute from "~/routes/api+/users";
import * as vesselsRoute from "~/routes/api+/vessels";
import * as riskSettingsRoute from "~/routes/api+/riskSettings";
import { riskSettingsBodySchema } from "~/models/risk/risk.schema";
import { API } from "~/web/openapi.server";
import { archiveSchemas } from "~/models/archive/archive.schema";
import { implementerDraftSchema } from "~/models/moc/moc.schema";
import { updatePcrSchema } from "~/models/pcr/pcr.schema";
import { reviewUpdateSchema } from "~/models/review/review.schema";
import { ownProfileSchema, userUpdateSchema } from "~/models/people/user.schema";
import { vesselUpdateSchema } from "~/models/fleet/vessel.schema";
import { api } from "../helpers/api";
import { userRow } from "../helpers/db-state";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { createMocOk, makeCast } from "../helpers/moc-flow";
import { createPcrOk, pcrRow, tokenOf } from "../helpers/pcr";
import type { CallResult } from "../helpers/request";

const ID = "6f1d3c9e-8a0b-4c2d-9e7f-0a1b2c3d4e5f";

/** Every partial (update) schema of the project, with the smallest body it takes. */
const PARTIAL_SCHEMAS: [string, z.ZodType, Record<string, unknown>][] = [
  ["PUT /api/users", userUpdateSchema, { _id: ID }],
  ["PUT /api/pcr", updatePcrSchema, { form: {} }],
  ["PATCH /api/user and PUT /api/UserFromDatabase", ownProfileSchema, {}],
  ["PATCH /api/oldMoc/{id}", archiveSchemas.moc.patch, { title: "Only the title" }],
  ["PATCH /api/oldPcr/{id}", archiveSchemas.pcr.patch, { title: "Only the title" }],
  ["POST /api/createImplementer (a draft)", implementerDraftSchema, { moc_id: ID, implementer_form: {} }],
  ["PUT /api/year-end-review", reviewUpdateSchema, { title: "Only the title" }],
  ["PUT /api/oldMoc", archiveSchemas.moc.replace, { _id: ID, title: "Only the title" }],
  ["PUT /api/oldPcr", archiveSchemas.pcr.replace, { _id: ID, title: "Only the title" }],
  ["PUT /api/vessels", vesselUpdateSchema, { flag: "Malta" }],
  ["PUT /api/riskSettings", riskSettingsBodySchema, { rankingRequired: true }],
];

describe("partial schemas", () => {
  it.each(PARTIAL_SCHEMAS)("%s adds no field the body left out", (_name, schema, body) => {
    expect(schema.parse(body)).toEqual(body);
  });
});

// The form with every field away from its default, so a reset would show.
const FULL_FORM = {
  "new-suggestion": true,
  "procedure-change": true,
  "safety-critical": true,
  "manual-procedure": "<p>Deck manual, section 4</p>",
  "suggestion-details": "<p>Check the mooring lines twice a watch</p>",
  "reason-for-change": "<p>Two near misses last quarter</p>",
} as const;
const CHANGED: Record<keyof typeof FULL_FORM, unknown> = {
  "new-suggestion": false,
  "procedure-change": false,
  "safety-critical": false,
  "manual-procedure": "<p>Engine manual, section 2</p>",
  "suggestion-details": "<p>Check them once a watch</p>",
  "reason-for-change": "<p>One near miss</p>",
};

describe("PUT /api/pcr merges a partial form", () => {
  it.each(Object.keys(FULL_FORM) as (keyof typeof FULL_FORM)[])("sending only %s changes only it", async (key) => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator, { form: FULL_FORM });
    const res = await api(pcrRoute, {
      method: "PUT",
      path: "/api/pcr",
      query: { id: pcr._id },
      token: await tokenOf(originator),
      body: { form: { [key]: CHANGED[key] } },
    });
    expect(res.status, res.text).toBe(200);
    const expected = { ...FULL_FORM, [key]: CHANGED[key] };
    for (const doc of [res.body.data.form, (await pcrRow(pcr._id))!.form]) {
      expect(doc).toMatchObject(expected);
    }
  });

  it("a PUT without form leaves the form as it was", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator, { form: FULL_FORM });
    const res = await api(pcrRoute, {
      method: "PUT",
      path: "/api/pcr",
      query: { id: pcr._id },
      token: await tokenOf(originator),
      body: { affectedParties: [] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.form).toMatchObject(FULL_FORM);
  });
});

describe("PUT /api/users keeps what it is not sent", () => {
  const CHANGES: Record<string, (u: { email: string }) => unknown> = {
    name: () => "Renamed Person",
    email: () => `renamed-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: () => "a-new-password-9",
    department: () => "operations",
    active: () => true,
    position: () => "President",
  };
  const KEPT = ["name", "email", "role", "department", "access", "position", "active"] as const;

  it.each(Object.keys(CHANGES))("changing only %s keeps role, access and the rest", async (key) => {
    const admin = await makeAdmin();
    const target = await makeAdmin({ department: "fleet", position: "Director HSEQ" });
    const before = (await userRow(target._id))!;
    const value = CHANGES[key]!(target);
    const res = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: await tokenFor(admin),
      body: { _id: target._id, [key]: value },
    });
    expect(res.status, res.text).toBe(200);
    const after = (await userRow(target._id))!;
    for (const field of KEPT) {
      if (field === key) continue;
      expect(after[field], field).toEqual(before[field]);
    }
    expect(after.role).toBe("admin");
    expect(after.access).toBe("full");
    if (key !== "password") expect(after[key as (typeof KEPT)[number]]).toEqual(value);
  });
});

// ---------------------------------------------------------------------------------------------
// Every PUT and PATCH of the API document, one field at a time

type Doc = Record<string, unknown>;
type Target = {
  /** The record as a client reads it (or as stored), flattened to the fields compared. */
  read: () => Promise<Doc>;
  /** Sends the body naming this record and only `fields`. */
  send: (fields: Doc) => Promise<CallResult>;
};
type WriteCase = {
  /** Creates a fresh record to change. */
  make: () => Promise<Target>;
  /** For each field a client may send alone: a new value, unlike the one `make` stored. */
  changes: Record<string, () => unknown>;
  /** Keys every write moves (who and when it was last changed). */
  moving: string[];
  /** Fields derived from a field, which move with it (docs/api-contract.md names them). */
  derived?: Record<string, string[]>;
};

const without = (doc: Doc, keys: string[]) =>
  Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));
/** A document with its `form` fields as `form.<key>`, so each is compared on its own. */
const flatForm = (doc: Doc) => {
  const { form, ...rest } = doc as { form: Doc };
  return { ...rest, ...Object.fromEntries(Object.entries(form).map(([k, v]) => [`form.${k}`, v])) };
};

let imoSeed = 100_000 + Math.floor(Math.random() * 800_000);
/** A fresh valid IMO number (the seventh digit checks the first six). */
function nextImo(): string {
  const six = String(imoSeed++);
  const check = [...six].reduce((sum, d, i) => sum + Number(d) * (7 - i), 0) % 10;
  return `${six}${check}`;
}

const serial = () => `PU-${randomUUID().slice(0, 8)}`;

function archiveCase(kind: "moc" | "pcr", method: "PUT" | "PATCH"): WriteCase {
  const [route, item, path] =
    kind === "moc" ? [oldMocRoute, oldMocItemRoute, "/api/oldMoc"] : [oldPcrRoute, oldPcrItemRoute, "/api/oldPcr"];
  return {
    async make() {
      const admin = await makeAdmin();
      const token = await tokenFor(admin);
      const created = await api(route, {
        method: "POST",
        path,
        token,
        body: {
          serial_num: serial(),
          title: "Bilge pump replacement",
          ...(kind === "moc" ? { description: "Replaced the aft pump", department: "Engineering" } : {}),
          ...(kind === "pcr" ? { procedure: "Ballast procedure 3.1" } : {}),
          originator_name: "Jan de Vries",
          date_raised: "2014-03-02",
          date_closed: "2014-05-20",
          attachments: ["https://files.example.com/a.pdf"],
          notes: "From the binder",
        },
      });
      expect(created.status, created.text).toBe(200);
      const id = created.body.data._id as string;
      return {
        read: async () => (await api(item, { path: `${path}/${id}`, params: { id }, token })).body.data,
        send: (fields) =>
          method === "PUT"
            ? api(route, { method, path, token, body: { _id: id, ...fields } })
            : api(item, { method, path: `${path}/${id}`, params: { id }, token, body: fields }),
      };
    },
    changes: {
      serial_num: serial,
      title: () => "Another title",
      ...(kind === "moc" ? { description: () => "Another description", department: () => "Deck" } : {}),
      ...(kind === "pcr" ? { procedure: () => "Another procedure" } : {}),
      originator_name: () => "Another Person",
      date_raised: () => "2014-01-15",
      date_closed: () => null,
      attachments: () => ["https://files.example.com/b.pdf"],
      notes: () => "Other notes",
    },
    moving: ["updatedAt", "updated_by"],
    // A legacy record's status is derived from its closing date (sent alone, it is refused).
    derived: { date_closed: ["status"] },
  };
}

async function reviewTarget(): Promise<Target> {
  const [admin, alice, bob] = await Promise.all([makeAdmin(), makeUser(), makeUser()]);
  const token = await tokenFor(admin);
  const created = await api(reviewRoute, {
    method: "POST",
    path: "/api/year-end-review",
    token,
    body: {
      year: 1991,
      title: "Year-end review 1991",
      sections: [{ heading: "Overview", body: "<p>The year</p>" }],
      participants: [alice._id, bob._id],
      effectiveness: "<p>Effective</p>",
      improvements: "<p>Faster</p>",
      issues: "<p>Late</p>",
      actions: [{ description: "Shorten the step", owner: bob._id, due: "1992-03-31", status: "open" }],
      moc_summary: { total: 3, completed: 1, declined: 1, open: 1, by_department: { fleet: 3 } },
    },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.data._id as string;
  return {
    read: async () => (await api(reviewRoute, { path: "/api/year-end-review", query: { id }, token })).body.data,
    send: (fields) =>
      api(reviewRoute, { method: "PUT", path: "/api/year-end-review", query: { id }, token, body: fields }),
  };
}

/** A user's stored row; the password as "its hash changed or not". */
const userTarget = (send: (who: { _id: string }, fields: Doc) => Promise<CallResult>) => async (): Promise<Target> => {
  const target = await makeAdmin({ department: "fleet", position: "Director HSEQ" });
  const first = (await userRow(target._id))!.passwordHash;
  return {
    read: async () => {
      const { passwordHash, ...row } = (await userRow(target._id))!;
      return { ...row, password: passwordHash === first ? "unchanged" : "changed" };
    },
    send: (fields) => send(target, fields),
  };
};
const uniqueEmail = () => `pu-${randomUUID().slice(0, 8)}@example.com`;
const ownProfile = (route: typeof userRoute | typeof userFromDatabaseRoute, method: string, path: string) =>
  userTarget(async (who, fields) =>
    api(route, {
      method,
      path,
      token: await tokenOf(who),
      // A new password or email needs the current password.
      body: "name" in fields ? fields : { ...fields, currentPassword: PASSWORD },
    }),
  );
const OWN_PROFILE = { name: () => "Renamed Person", email: uniqueEmail, password: () => "a-new-password-9" };

const WRITES: Record<string, WriteCase> = {
  "PUT /api/year-end-review": {
    make: reviewTarget,
    changes: {
      year: () => 1992,
      title: () => "Another title",
      sections: () => [{ heading: "Other", body: "<p>Other</p>" }],
      participants: () => [],
      effectiveness: () => "<p>Less</p>",
      improvements: () => "<p>Slower</p>",
      issues: () => "<p>Early</p>",
      actions: () => [],
      moc_summary: () => ({ total: 1, completed: 1, declined: 0, open: 0, by_department: { deck: 1 } }),
    },
    moving: ["updatedAt", "updatedBy"],
    // The summary counts the review's year: another year is counted.
    derived: { year: ["moc_summary"] },
  },
  "PUT /api/oldMoc": archiveCase("moc", "PUT"),
  "PATCH /api/oldMoc/{id}": archiveCase("moc", "PATCH"),
  "PUT /api/oldPcr": archiveCase("pcr", "PUT"),
  "PATCH /api/oldPcr/{id}": archiveCase("pcr", "PATCH"),
  "PUT /api/pcr": {
    async make() {
      const originator = await makeUser();
      const token = await tokenOf(originator);
      const pcr = await createPcrOk(originator, { form: FULL_FORM });
      return {
        read: async () =>
          flatForm(
            (await api(pcrItemRoute, { path: `/api/pcr/${pcr._id}`, params: { id: pcr._id }, token })).body.data,
          ),
        send: ({ affectedParties, ...form }) =>
          api(pcrRoute, {
            method: "PUT",
            path: "/api/pcr",
            query: { id: pcr._id },
            token,
            body: affectedParties
              ? { affectedParties }
              : { form: Object.fromEntries(Object.entries(form).map(([k, v]) => [k.slice(5), v])) },
          }),
      };
    },
    changes: {
      ...Object.fromEntries(Object.entries(CHANGED).map(([k, v]) => [`form.${k}`, () => v])),
      affectedParties: async () => [{ Name: { value: (await makeUser())._id } }],
    },
    moving: ["updatedAt"],
  },
  "PUT /api/users": {
    make: userTarget(async (who, fields) =>
      api(usersRoute, {
        method: "PUT",
        path: "/api/users",
        token: await tokenFor(await makeAdmin()),
        body: { _id: who._id, ...fields },
      }),
    ),
    changes: {
      name: () => "Renamed Person",
      email: uniqueEmail,
      password: () => "a-new-password-9",
      department: () => "operations",
      role: () => "user",
      access: () => "standard",
      position: () => "President",
      active: () => false,
    },
    moving: ["updatedAt", "sessionVersion", "passwordChangedAt"],
    // A password an admin sets is changed by its owner at the next sign-in.
    derived: { password: ["onboarded"] },
  },
  "PATCH /api/user": {
    make: ownProfile(userRoute, "PATCH", "/api/user"),
    changes: OWN_PROFILE,
    moving: ["updatedAt", "sessionVersion", "passwordChangedAt"],
  },
  "PUT /api/UserFromDatabase": {
    make: ownProfile(userFromDatabaseRoute, "PUT", "/api/UserFromDatabase"),
    changes: OWN_PROFILE,
    moving: ["updatedAt", "sessionVersion", "passwordChangedAt"],
  },
  "PUT /api/vessels": {
    async make() {
      const token = await tokenFor(await makeAdmin());
      const created = await api(vesselsRoute, {
        method: "POST",
        path: "/api/vessels",
        token,
        body: {
          name: `MV ${randomUUID().slice(0, 6)}`,
          imo: nextImo(),
          ship_type: "Tanker",
          flag: "Norway",
          active: true,
        },
      });
      expect(created.status, created.text).toBe(200);
      const id = created.body.data._id as string;
      return {
        read: async () => (await api(vesselsRoute, { path: "/api/vessels", query: { id }, token })).body.data,
        send: (fields) =>
          api(vesselsRoute, { method: "PUT", path: "/api/vessels", query: { id }, token, body: fields }),
      };
    },
    changes: {
      name: () => `MV ${randomUUID().slice(0, 6)}`,
      imo: nextImo,
      ship_type: () => "Bulk carrier",
      flag: () => "Malta",
      active: () => false,
    },
    moving: ["updatedAt"],
  },
  "PUT /api/riskSettings": {
    async make() {
      const token = await tokenFor(await makeAdmin());
      return {
        read: async () => (await api(riskSettingsRoute, { path: "/api/riskSettings", token })).body.data,
        send: (fields) => api(riskSettingsRoute, { method: "PUT", path: "/api/riskSettings", token, body: fields }),
      };
    },
    changes: {
      lowMax: () => 3,
      mediumMax: () => 8,
      highMax: () => 13,
      highPosition: () => "Group HSEQ Manager",
      extremePosition: () => "VP Fleet Management",
      rankingRequired: () => true,
    },
    moving: [],
  },
  // One field besides the MOC's id; the MOC's other people and forms stay.
  "PUT /api/implementer": {
    async make() {
      const cast = await makeCast();
      const moc = await createMocOk(cast);
      const token = await tokenOf(cast.originator);
      return {
        read: async () => {
          const doc = (await api(singlemocRoute, { path: "/api/singlemoc", query: { moc_id: moc._id }, token })).body;
          // all_users and logs record the hand-over itself.
          return without(doc, ["all_users", "logs", "chat"]);
        },
        send: (fields) =>
          api(implementerRoute, {
            method: "PUT",
            path: "/api/implementer",
            token,
            body: { moc_id: moc._id, ...fields },
          }),
      };
    },
    changes: { implementer_id: async () => (await makeUser())._id },
    moving: ["updatedAt"],
  },
};

describe("every PUT and PATCH changes only the field it is sent", () => {
  it("the table names every PUT and PATCH of the API document", () => {
    const documented = Object.entries(API).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => m === "put" || m === "patch")
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(Object.keys(WRITES).sort()).toEqual(documented.sort());
  });

  const rows = Object.entries(WRITES).flatMap(([name, c]) =>
    Object.keys(c.changes).map((field) => [name, field] as const),
  );
  it.each(rows)("%s with only %s", async (name, field) => {
    const c = WRITES[name]!;
    const target = await c.make();
    const before = await target.read();
    const value = await c.changes[field]!();
    const res = await target.send({ [field]: value });
    expect(res.status, res.text).toBe(200);
    const after = await target.read();
    const changing = [...c.moving, field, ...(c.derived?.[field] ?? [])];
    expect(without(after, changing)).toEqual(without(before, changing));
    expect(after[field], `${field} changed`).not.toEqual(before[field]);
  });
});
