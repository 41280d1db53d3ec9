import { z } from "zod";
import { emailSchema } from "~/models/user.schema";
import { checkCredentials } from "~/utils/auth.server";
import { apiJson, apiRoute, readQuery } from "~/utils/http.server";

/** Public and rate limited: checks an email and password without opening a session. */
const route = apiRoute({
  async GET({ request }) {
    const { email, password } = readQuery(
      request,
      z.object({
        email: emailSchema,
        password: z.string({ error: "password is required" }).min(1, { error: "password is required" }),
      }),
    );
    const user = await checkCredentials(email, password);
    return apiJson({ message: "Credentials are valid", status: 200, user });
  },
});

export const loader = route.loader;
export const action = route.action;
