/**
 * A partial update changes only what it names (docs/decisions/031-api-contract.md): every partial schema of
 * the API adds nothing the client did not send (zod's `.partial()` keeps `.default()`s, which
 * reset omitted fields: app/models/partial-update.ts), and, through the API, PUT /api/pcr merges
 * each PCR form field on its own and PUT /api/users keeps every field it is not sent.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as pcrRoute from "~/routes/api+/pcr";
import * as usersRoute from "~/routes/api+/users";
import { archiveSchemas } from "~/models/archive.schema";
import { implementerDraftSchema } from "~/models/moc.schema";
import { updatePcrSchema } from "~/models/pcr.schema";
import { ownProfileSchema, userUpdateSchema } from "~/models/user.schema";
import { api } from "../helpers/api";
import { userRow } from "../helpers/db-state";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { createPcrOk, pcrRow, tokenOf } from "../helpers/pcr";

const ID = "6f1d3c9e-8a0b-4c2d-9e7f-0a1b2c3d4e5f";

/** Every partial (update) schema of the project, with the smallest body it takes. */
const PARTIAL_SCHEMAS: [string, z.ZodType, Record<string, unknown>][] = [
  ["PUT /api/users", userUpdateSchema, { _id: ID }],
  ["PUT /api/pcr", updatePcrSchema, { form: {} }],
  ["PATCH /api/user and PUT /api/UserFromDatabase", ownProfileSchema, {}],
  ["PATCH /api/oldMoc/{id}", archiveSchemas.moc.patch, { title: "Only the title" }],
  ["PATCH /api/oldPcr/{id}", archiveSchemas.pcr.patch, { title: "Only the title" }],
  ["POST /api/createImplementer (a draft)", implementerDraftSchema, { moc_id: ID, implementer_form: {} }],
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
