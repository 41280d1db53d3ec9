import { signaturesBodySchema } from "~/models/pcr.schema";
import { getPcr, signPcr } from "~/models/pcr.server";
import { requireIdentity } from "~/web/auth.server";
import { reauthenticate, reauthMethodFor } from "~/web/reauth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const identity = await requireIdentity(request);
    const body = await readJson(request, signaturesBodySchema);
    // PASSWORD_SIGN_IN=off: a call that adds a signature spends the session's fresh sign-in at
    // the identity provider (app/web/reauth.server.ts); comments alone do not.
    if (reauthMethodFor(identity.user) === "provider") {
      const before = await getPcr(identity.user, body.pcrId);
      const adds = body.signatures.some(
        (s, i) => typeof s.Signature === "string" && typeof before.signatures[i]?.Signature !== "string",
      );
      if (adds) await reauthenticate(identity, request, { back: `/pcrs/${body.pcrId}` });
    }
    return ok(await signPcr(identity.user, body.pcrId, body.signatures));
  },
});

export const loader = route.loader;
export const action = route.action;
