import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { verifyAuditTrail, type AuditKind } from "~/models/audit.server";
import { canVerifyAudit } from "~/models/authz.server";
import { requirePageUser } from "~/web/auth.server";
import { Forbidden } from "~/utils/errors";
import { countAuditVerification } from "~/utils/metrics.server";
import { pageError } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Audit trail · Change Management" }];

/** Where a record's page is, when it still exists. */
const RECORD_URL: Record<AuditKind, (id: string) => string> = {
  moc: (id) => `/mocs/${id}`,
  pcr: (id) => `/pcrs/${id}`,
  user: (id) => `/admin/users/${id}`,
  "archive-moc": (id) => `/archive/mocs/${id}`,
  "archive-pcr": (id) => `/archive/pcrs/${id}`,
  review: (id) => `/reviews/${id}`,
  delegation: () => "/admin/delegations",
};

const KIND_LABEL: Record<AuditKind, string> = {
  moc: "MOC",
  pcr: "PCR",
  user: "User",
  "archive-moc": "Legacy MOC",
  "archive-pcr": "Legacy PCR",
  review: "Year-end review",
  delegation: "Delegation",
};

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  if (!canVerifyAudit(user)) pageError(new Forbidden("Only administrators can check the audit trail."));
  const result = await verifyAuditTrail();
  countAuditVerification(result);
  return { ...result, checkedAt: new Date().toISOString() };
}

export default function AuditTrail() {
  const { chains, entries, broken, checkedAt } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Audit trail</h1>
      <p className="muted">
        Every record keeps an append-only history; each entry carries the SHA-256 of its content and of the entry before
        it. This page recomputes every hash (as <code>npm run audit:verify</code> does) and names the first broken link
        of each chain.
      </p>
      <section className="card" aria-labelledby="verify-title">
        <h2 id="verify-title">Verification</h2>
        <p>
          Checked {entries} entries in {chains} chains at <time dateTime={checkedAt}>{checkedAt}</time>.
        </p>
        {broken.length === 0 ? (
          <p className="callout" role="status">
            Every chain holds: no entry was changed, removed or reordered after it was written.
          </p>
        ) : (
          <div className="callout callout-danger" role="alert">
            <p>
              <strong>
                {broken.length} {broken.length === 1 ? "chain is" : "chains are"} broken.
              </strong>{" "}
              The first broken link of each:
            </p>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Record</th>
                    <th scope="col">Entry</th>
                    <th scope="col">Entry id</th>
                    <th scope="col">What is wrong</th>
                  </tr>
                </thead>
                <tbody>
                  {broken.map((link) => (
                    <tr key={`${link.kind}:${link.recordId}`}>
                      <td>
                        <Link to={RECORD_URL[link.kind](link.recordId)}>
                          {KIND_LABEL[link.kind]} {link.recordId}
                        </Link>
                      </td>
                      <td>#{link.seq}</td>
                      <td>
                        <code>{link.entryId}</code>
                      </td>
                      <td>{link.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </section>
    </>
  );
}
