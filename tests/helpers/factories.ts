import { randomBytes } from "node:crypto";
import { createSession } from "~/models/sign-in/session.server";
import { insertUser, type PublicUser } from "~/models/people/user.server";
import type { NewUserInput } from "~/models/people/user.schema";

export const PASSWORD = "correct-horse-battery";

let counter = 0;

/** A user with a unique email; already onboarded unless told otherwise. */
export async function makeUser(overrides: Partial<NewUserInput> & { onboarded?: boolean } = {}): Promise<PublicUser> {
  counter += 1;
  const tag = `${counter}-${randomBytes(3).toString("hex")}`;
  return insertUser({
    name: `Test User ${tag}`,
    email: `user-${tag}@example.com`,
    password: PASSWORD,
    department: "engineering",
    ...overrides,
  });
}

export const makeAdmin = (overrides: Partial<NewUserInput> = {}) =>
  makeUser({ role: "admin", department: "hseq", access: "full", ...overrides });

/** A real session for the user: the token a client would get from /login. */
export async function tokenFor(user: PublicUser): Promise<string> {
  return (await createSession(user)).token;
}
