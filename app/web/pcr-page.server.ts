/** What the PCR pages share on the server: loading a record for a page, beside its access fields. */
import { z } from "zod";
import { getPcr, pcrAccessOf } from "~/models/pcr/pcr.server";
import { DomainError } from "~/utils/errors";
import { pageError, runForPage } from "~/utils/page.server";
import { requirePageIdentity } from "./auth.server";

/**
 * A PCR for a page, as the signed-in user may see it: the error page for a malformed or unknown id
 * (404) or one the user may not read (403, getPcr's own rule).
 */
export async function requirePcrForPage(request: Request, id: string | undefined) {
  const { user, sessionId } = await requirePageIdentity(request);
  const parsed = z.uuid().safeParse(id);
  const result = await runForPage(() =>
    parsed.success ? getPcr(user, parsed.data) : Promise.reject(new DomainError(404, "No such PCR")),
  );
  if (!result.ok) pageError(result.error);
  const pcr = result.value;
  return { user, sessionId, pcr, access: pcrAccessOf(pcr) };
}
