/**
 * The page side of delegations (the profile and the admin page): the two forms post
 * `intent=delegate` (a new delegation) and `intent=end-delegation`; errors come back as a message
 * and per field, the entered values kept.
 */
import { data } from "@remix-run/node";
import { createDelegation, endDelegation } from "~/models/people/delegation.server";
import type { PublicUser } from "~/models/people/user.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { fieldErrors, runForPage } from "~/utils/page.server";

export type DelegationReply = {
  intent: "delegate" | "end-delegation";
  message: string;
  fields: Record<string, string[]>;
  values: Record<string, string>;
};

export const isDelegationPost = (form: FormData) =>
  form.get("intent") === "delegate" || form.get("intent") === "end-delegation";

/** Handles a delegation form; `forUser` is the absent person when the form does not name one (the profile). */
export async function delegationPageAction(form: FormData, actor: PublicUser, back: string, forUser?: string) {
  const text = (key: string) => String(form.get(key) ?? "");
  if (form.get("intent") === "end-delegation") {
    const result = await runForPage(() => endDelegation(actor, text("delegationId")));
    if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
    return redirectWithFlash(back, {
      kind: "success",
      message: `The delegation to ${result.value.delegateName} has ended.`,
    });
  }
  const values = {
    userId: forUser ?? text("userId"),
    delegateId: text("delegateId"),
    startsOn: text("startsOn"),
    endsOn: text("endsOn"),
  };
  const result = await runForPage(() => createDelegation(actor, values));
  if (!result.ok) {
    return data<DelegationReply>(
      { intent: "delegate", message: result.error.message, fields: fieldErrors(result.error), values },
      { status: result.error.status },
    );
  }
  return redirectWithFlash(back, {
    kind: "success",
    message: `${result.value.delegateName} stands in for ${result.value.userName} from ${result.value.startsOn} to ${result.value.endsOn}.`,
  });
}
