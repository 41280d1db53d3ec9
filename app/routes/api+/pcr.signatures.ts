import { signaturesBodySchema } from "~/models/pcr/pcr.schema";
import { signPcr, wouldSignPcr } from "~/models/pcr/pcr-signing.server";
import { requireIdentity } from "~/web/auth.server";
import { reauthenticate } from "~/web/reauth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const identity = await requireIdentity(request);
    const { pcrId, signatures, password } = await readJson(request, signaturesBodySchema);
    // Signing asks again who it is, as on the page (app/web/reauth.server.ts): the password, or
    // with PASSWORD_SIGN_IN=off a fresh sign-in at the identity provider; a comment alone does not.
    if (await wouldSignPcr(pcrId, signatures)) {
      await reauthenticate(identity, request, { password, back: `/pcrs/${pcrId}` });
    }
    return ok(await signPcr(identity.user, pcrId, signatures));
  },
});

export const loader = route.loader;
export const action = route.action;
