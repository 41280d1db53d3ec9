/**
 * Who may do what (clarifications section 4), as the predicates in app/models/authz.server.ts decide it:
 * a table of actors x predicates. Plus the same-origin rule for redirectTo.
 */
import { describe, expect, it } from "vitest";
import { canListUsers, canManageUsers, canSeeOutbox, type Actor } from "../../app/models/authz.server";
import { safeRedirect } from "../../app/utils/auth.server";

const actor = (overrides: Partial<Actor>): Actor => ({
  _id: crypto.randomUUID(),
  role: "user",
  department: "engineering",
  access: "standard",
  position: null,
  ...overrides,
});

const ACTORS = {
  admin: actor({ role: "admin", department: "operations" }),
  "hseq user": actor({ department: "hseq" }),
  "full-access user": actor({ access: "full" }),
  "standard user": actor({}),
  "position holder": actor({ position: "President" }),
} as const;

type ActorName = keyof typeof ACTORS;

const PREDICATES = { canManageUsers, canListUsers, canSeeOutbox } as const;

/** Expected answer per predicate, per actor. */
const TABLE: Record<keyof typeof PREDICATES, Record<ActorName, boolean>> = {
  canManageUsers: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canListUsers: {
    admin: true,
    "hseq user": true,
    "full-access user": true,
    "standard user": true,
    "position holder": true,
  },
  canSeeOutbox: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
};

const CASES = Object.entries(TABLE).flatMap(([predicate, row]) =>
  Object.entries(row).map(([who, expected]) => ({
    predicate: predicate as keyof typeof PREDICATES,
    who: who as ActorName,
    expected,
  })),
);

describe("authz predicates", () => {
  it.each(CASES)("$predicate($who) is $expected", ({ predicate, who, expected }) => {
    expect(PREDICATES[predicate](ACTORS[who])).toBe(expected);
  });

  it("an hseq admin with full access is still an admin (the grounds do not cancel out)", () => {
    const everything = actor({ role: "admin", department: "hseq", access: "full", position: "Director HSEQ" });
    expect(canManageUsers(everything)).toBe(true);
    expect(canSeeOutbox(everything)).toBe(true);
  });
});

describe("safeRedirect", () => {
  it.each([
    ["/", "/"],
    ["/mocs", "/mocs"],
    ["/mocs/123?tab=chat#latest", "/mocs/123?tab=chat#latest"],
    ["/admin/users?search=a%20b", "/admin/users?search=a%20b"],
  ])("keeps the same-origin path %j", (to, expected) => {
    expect(safeRedirect(to)).toBe(expected);
  });

  it.each([
    ["//evil.com", "protocol-relative"],
    ["///evil.com", "protocol-relative with three slashes"],
    ["/\\evil.com", "backslash (browsers read it as //)"],
    ["/\t/evil.com", "tab (browsers drop it, leaving //)"],
    ["/\n/evil.com", "newline (browsers drop it, leaving //)"],
    ["https://evil.com", "absolute"],
    ["http://localhost:3000/mocs", "absolute, even our own origin"],
    ["javascript:alert(1)", "javascript: URL"],
    ["mocs", "relative path"],
    ["", "empty"],
    [" /mocs", "leading space"],
  ])("falls back to / for %j (%s)", (to) => {
    expect(safeRedirect(to)).toBe("/");
  });

  it.each([null, undefined])("falls back to / for %s", (to) => {
    expect(safeRedirect(to)).toBe("/");
  });

  it("falls back to a File form value and uses the given fallback", () => {
    expect(safeRedirect(new File(["/mocs"], "x.txt"), "/home")).toBe("/home");
    expect(safeRedirect("//evil.com", "/dashboard")).toBe("/dashboard");
    expect(safeRedirect("/mocs", "/dashboard")).toBe("/mocs");
  });
});
