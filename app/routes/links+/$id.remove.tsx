// POST /links/:id/remove: the "Linked records" section's Remove button (issue 42,
// docs/decisions/057-record-links-and-references.md): removes the link, back to the record's section.
import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { LINKS_ANCHOR } from "~/components/record-links";
import { unlinkRecord } from "~/models/records/record-links.server";
import { getDb } from "~/utils/db.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";
import { requirePageUser, safeRedirect } from "~/web/auth.server";

export async function loader() {
  return redirect("/");
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const form = await request.formData();
  const back = `${safeRedirect(form.get("back"), "/")}#${LINKS_ANCHOR}`;
  const result = await runForPage(() => unlinkRecord(getDb(), user, String(params.id ?? "")));
  if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
  return redirectWithFlash(back, {
    kind: "success",
    message: "The link is removed (it stays in both records' history).",
  });
}
