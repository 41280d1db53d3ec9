/**
 * The "References" section of the record pages (issue 42, docs/decisions/057-record-links-and-references.md):
 * what a page's loader adds (`referencesPanel`) and how its action handles the section's two forms
 * (`isReferencesPost`, `referencesPageAction`), as chat-page.server.ts does for the chat. Plain
 * posts to the page itself: without JavaScript a refusal comes back as the page with the form's
 * errors by field; a change redirects back to the section with a message.
 */
import { data } from "@remix-run/node";
import type { Actor } from "~/models/authz/authz.server";
import type { RecordRef } from "~/models/records/record-refs.server";
import { addReference, referencesForPage, removeReference } from "~/models/records/references.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";
import {
  REFERENCE_ADD_INTENT,
  REFERENCE_REMOVE_INTENT,
  REFERENCES_ANCHOR,
  type ReferencesRefusal,
} from "~/components/record-references";

/** The section's data for the record page's loader. */
export const referencesPanel = (actor: Actor, ref: RecordRef) => referencesForPage(actor, ref);

/** Whether a page's post is one of the section's forms. */
export const isReferencesPost = (form: FormData) =>
  form.get("intent") === REFERENCE_ADD_INTENT || form.get("intent") === REFERENCE_REMOVE_INTENT;

const text = (form: FormData, key: string) => {
  const value = form.get(key);
  return typeof value === "string" ? value : "";
};

/**
 * Adds or removes a reference of the record `ref` as the page's form asks, then back to `here`'s
 * section; a refusal is the page again with `{ references }` (the fields typed and each error by field).
 */
export async function referencesPageAction(form: FormData, actor: Actor, ref: RecordRef, here: string) {
  const back = `${here}#${REFERENCES_ANCHOR}`;
  if (form.get("intent") === REFERENCE_REMOVE_INTENT) {
    const result = await runForPage(() => removeReference(actor, text(form, "reference")));
    if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
    return redirectWithFlash(back, {
      kind: "success",
      message: `${result.value.typeName} ${result.value.ref} is removed from the references.`,
    });
  }
  const typed = { type: text(form, "type"), ref: text(form, "ref") };
  const result = await runForPage(() =>
    addReference(actor, { record: `${ref.kind}:${ref.id}`, type: typed.type, ref: typed.ref }),
  );
  if (!result.ok) {
    const fieldErrors: ReferencesRefusal["fieldErrors"] = {};
    for (const issue of result.error.issues ?? []) {
      if ((issue.path === "type" || issue.path === "ref") && !fieldErrors[issue.path])
        fieldErrors[issue.path] = issue.message;
    }
    const refusal: ReferencesRefusal = {
      typed,
      fieldErrors,
      formError: Object.keys(fieldErrors).length === 0 ? result.error.message : null,
    };
    return data({ references: refusal }, { status: result.error.status });
  }
  return redirectWithFlash(back, {
    kind: "success",
    message: `${result.value.typeName} ${result.value.ref} is added to the references.`,
  });
}
