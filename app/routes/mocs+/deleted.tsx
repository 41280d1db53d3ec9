import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { z } from "zod";
import { SubmitButton } from "~/components/submit";
import { formatDateTime, StatusBadge } from "~/components/moc";
import { MocListTabs } from "~/components/moc-list-tabs";
import { canSeeDeletedMocs } from "~/models/authz/authz.server";
import { listDeletedMocs, restoreMoc } from "~/models/moc/moc.server";
import { requirePageUserWho } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";

/** Admins' list of deleted MOCs, with who deleted each, when and why, and a restore button. */
export const meta: MetaFunction = () => [{ title: "Deleted MOCs · Change Management" }];

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only admins see deleted MOCs.";

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUserWho(request, canSeeDeletedMocs, REFUSAL);
  return { rows: await listDeletedMocs(user) };
}

const restoreForm = z.object({ intent: z.literal("restore"), moc_id: z.uuid({ error: "Choose a MOC to restore" }) });

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUserWho(request, canSeeDeletedMocs, REFUSAL);
  const parsed = restoreForm.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) {
    return redirectWithFlash("/mocs/deleted", {
      kind: "error",
      message: parsed.error.issues[0]?.message ?? "That action was not understood.",
    });
  }
  const result = await runForPage(() => restoreMoc(user, parsed.data.moc_id));
  if (!result.ok) return redirectWithFlash("/mocs/deleted", { kind: "error", message: result.error.message });
  return redirectWithFlash(`/mocs/${result.value._id}`, {
    kind: "success",
    message: `MOC ${result.value.serial_num} is restored.`,
  });
}

export default function DeletedMocs() {
  const { rows } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Deleted MOCs</h1>
          <p className="muted">
            {rows.length} {rows.length === 1 ? "record" : "records"}, kept with their history; restoring one puts it
            back where it was.
          </p>
        </div>
      </div>
      <MocListTabs current="deleted" />
      <div className="card table-wrap">
        {rows.length === 0 ? (
          <p className="empty">No MOC is deleted.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Deleted MOCs</caption>
            <thead>
              <tr>
                <th scope="col">Serial</th>
                <th scope="col">Status when deleted</th>
                <th scope="col">Deleted by</th>
                <th scope="col">When</th>
                <th scope="col">Why</th>
                <th scope="col">
                  <span className="visually-hidden">Restore</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r._id}>
                  <td data-label="Serial">
                    MOC {r.serialNum}
                    {r.title ? (
                      <>
                        <br />
                        <span className="muted">{r.title}</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label="Status when deleted">
                    <StatusBadge status={r.status} completed={false} />
                  </td>
                  <td data-label="Deleted by">{r.deletedBy ?? <span className="muted">—</span>}</td>
                  <td data-label="When">{r.deletedAt ? formatDateTime(r.deletedAt) : "—"}</td>
                  <td data-label="Why">
                    {r.reason ?? <span className="muted">No reason given (before any decision)</span>}
                  </td>
                  <td data-label="Restore">
                    <Form method="post">
                      <input type="hidden" name="moc_id" value={r._id} />
                      <SubmitButton
                        name="intent"
                        value="restore"
                        className="button button-small"
                        pendingText="Restoring…"
                      >
                        Restore <span className="visually-hidden">MOC {r.serialNum}</span>
                      </SubmitButton>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
