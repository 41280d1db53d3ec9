import { signaturesBodySchema } from "~/models/pcr.schema";
import { signPcr, wouldSignPcr } from "~/models/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { reauthenticate } from "~/web/reauthenticate.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { pcrId, signatures, password } = await readJson(request, signaturesBodySchema);
    // Signing needs the signer's password again, as on the page; a comment alone does not.
    if (await wouldSignPcr(pcrId, signatures)) await reauthenticate(actor, { password }, request);
    return ok(await signPcr(actor, pcrId, signatures));
  },
});

export const loader = route.loader;
export const action = route.action;
