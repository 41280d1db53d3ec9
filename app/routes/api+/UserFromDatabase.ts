import { assertNoAdminOnlyFields, ownProfileSchema } from "~/models/people/user.schema";
import { updateOwnProfile } from "~/models/people/user.server";
import { requireIdentity } from "~/web/auth.server";
import { clientAddress } from "~/utils/client-address.server";
import { apiJson, apiRoute, readJsonObject, validate } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const { user } = await requireIdentity(request, { allowNotOnboarded: true });
    return apiJson({ user, status: 200 });
  },
  async PUT({ request }) {
    const identity = await requireIdentity(request, { allowNotOnboarded: true });
    const body = await readJsonObject(request);
    assertNoAdminOnlyFields(body);
    const user = await updateOwnProfile(identity.user, validate(ownProfileSchema, body), {
      keepSessionId: identity.sessionId,
      clientAddress: clientAddress(request),
    });
    return apiJson({ user, status: 200 });
  },
});

export const loader = route.loader;
export const action = route.action;
