import { pendingActions } from "~/models/moc/actions.server";
import { assertNoAdminOnlyFields, ownProfileSchema } from "~/models/people/user.schema";
import { updateOwnProfile } from "~/models/people/user.server";
import { requireIdentity } from "~/web/auth.server";
import { clientAddress } from "~/utils/client-address.server";
import { apiRoute, ok, readJsonObject, validate } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const { user } = await requireIdentity(request, { allowNotOnboarded: true });
    return ok({ ...user, actions: (await pendingActions(user)).actions });
  },
  async PATCH({ request }) {
    // A user who has not onboarded yet may call this: it is how they choose their password.
    const identity = await requireIdentity(request, { allowNotOnboarded: true });
    const body = await readJsonObject(request);
    assertNoAdminOnlyFields(body);
    const input = validate(ownProfileSchema, body);
    return ok(
      await updateOwnProfile(identity.user, input, {
        keepSessionId: identity.sessionId,
        clientAddress: clientAddress(request),
      }),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
