/**
 * People, their own profile and credentials: sign-in checks, the profile, the users admins manage.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import {
  deletedAnswer,
  envelope,
  pendingActionAnswer,
  publicUserAnswer,
  userRefAnswer,
} from "~/web/openapi/answers.schema";
import {
  newUserSchema,
  ownProfileSchema,
  userIdBody,
  userUpdateSchema,
  verifyQuery,
} from "~/models/people/user.schema";
import { ONE_USER, okOf, type Operations } from "./operation";

export const USER_OPERATIONS: Operations = {
  "/api/verify": {
    get: {
      summary:
        "Checks an email and password without opening a session (rate limited). Kept for existing clients; " +
        "refused with 403, uncounted, when a browser says another site started it. Prefer POST.",
      query: verifyQuery,
      public: true,
      ok: z.object({ message: z.string(), status: z.literal(200), user: publicUserAnswer }),
      errors: [401, 403, 429],
    },
    post: {
      summary:
        "Checks an email and password (a JSON body) without opening a session (rate limited); " +
        "same answer as GET. Only from our own origin when a browser sends it.",
      body: verifyQuery,
      public: true,
      ok: z.object({ message: z.string(), status: z.literal(200), user: publicUserAnswer }),
      errors: [401, 403, 429],
    },
  },
  "/api/myUser": {
    get: {
      summary: "The caller's own user.",
      ok: z.object({ userData: userRefAnswer.omit({ active: true }), status: z.literal(200) }),
    },
  },
  "/api/user": {
    get: {
      summary: "The caller's user with the MOC steps waiting on them, oldest wait first.",
      ok: okOf(publicUserAnswer.extend({ actions: z.array(pendingActionAnswer) })),
    },
    patch: {
      summary: "Changes the caller's own name, email or password (currentPassword required for a password).",
      body: ownProfileSchema,
      ok: ONE_USER,
      errors: [409, 429],
    },
  },
  "/api/UserFromDatabase": {
    get: {
      summary: "The caller's own user, read from the database.",
      ok: z.object({ user: publicUserAnswer, status: z.literal(200) }),
    },
    put: {
      summary: "Same as PATCH /api/user.",
      body: ownProfileSchema,
      ok: z.object({ user: publicUserAnswer, status: z.literal(200) }),
      errors: [409, 429],
    },
  },
  "/api/ranks": {
    get: {
      summary:
        "The ranks on board in the list's order (anyone signed in); a deactivated one (`active: false`) stays with the people who hold it but is no longer accepted as a new `rank`.",
      ok: okOf(z.array(z.object({ name: z.string(), sort: z.number().int(), active: z.boolean() }))),
    },
  },
  "/api/users": {
    get: {
      summary: "The user directory (any signed-in user); `search` filters by name or email.",
      description:
        "The whole list by name, a page with `limit`/`cursor` (newest account first, so accounts created during a walk are neither skipped nor repeated), " +
        "or the list as CSV.",
      query: z.object({ search: z.string().optional().meta({ description: "Part of a name or email." }) }),
      ok: okOf(z.array(publicUserAnswer)),
      csv: z.object({}),
      paged: true,
    },
    post: {
      summary: "Creates a user (admins). `rank` names an active rank of GET /api/ranks, or null (400 otherwise).",
      body: newUserSchema,
      ok: envelope(publicUserAnswer, 201),
      okStatus: 201,
      errors: [409],
    },
    put: {
      summary:
        "Updates a user (admins): only the fields sent change. `rank`: an active rank of GET /api/ranks, the one they hold, or null for none (400 otherwise).",
      body: userUpdateSchema,
      ok: ONE_USER,
      errors: [404, 409],
    },
    delete: { summary: "Deletes a user (admins).", body: userIdBody, ok: okOf(deletedAnswer), errors: [404, 409] },
  },
};
