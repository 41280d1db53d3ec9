/**
 * Re-authentication before a signature (21 CFR 11.200 style: the signer proves again it is them),
 * in one place for the PCR page and POST /api/pcr/signatures (docs/decisions/026-four-eyes-by-record.md).
 * Today the proof is the account's password, spending the same failure budgets as signing in
 * (app/models/password-attempts.server.ts through `checkCredentials`); another kind of proof (a
 * fresh sign-in at the identity provider) is added here, as another member of `SigningProof`.
 */
import type { PublicUser } from "~/models/user.server";
import { Unauthorized } from "~/utils/errors";
import { checkCredentials } from "./auth.server";

/** What a signer sends to prove it is them. */
export type SigningProof = { password?: string | null };

export const REAUTH_REQUIRED = "Signing needs your password again (send it as password)";
export const REAUTH_FAILED = "The password is not correct";

/**
 * Proves that the signer behind `request` is `user` again, or throws: 401 without a proof or with a
 * wrong one (a wrong password counts against the failure budgets; a missing one does not), 429 when
 * a budget is spent.
 */
export async function reauthenticate(user: PublicUser, proof: SigningProof, request: Request): Promise<void> {
  const password = proof.password ?? "";
  if (!password) throw new Unauthorized(REAUTH_REQUIRED);
  try {
    const who = await checkCredentials(user.email, password, request);
    if (who._id !== user._id) throw new Unauthorized(REAUTH_FAILED);
  } catch (error) {
    if (error instanceof Unauthorized) throw new Unauthorized(REAUTH_FAILED);
    throw error;
  }
}
