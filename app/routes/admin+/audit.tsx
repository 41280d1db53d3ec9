import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { chainKind } from "~/models/audit/audit-chain.server";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import { canVerifyAudit } from "~/models/authz/authz.server";
import { requirePageUserWho } from "~/web/auth.server";
import { countAuditVerification } from "~/utils/metrics.server";

export const meta: MetaFunction = () => [{ title: "Audit trail · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUserWho(request, canVerifyAudit, "Only administrators can check the audit trail.");
  const result = await verifyAuditTrail();
  countAuditVerification(result);
  // Each broken chain named by its kind's label and linked to its record's page (the registry's).
  const broken = result.broken.map((link) => {
    const owner = chainKind(link.kind);
    const label = owner ? `${owner.signatures ? `Signatures of ${owner.kind.label}` : owner.kind.label}` : link.kind;
    return { ...link, label, path: owner?.kind.page?.(link.recordId) ?? null };
  });
  return { ...result, broken, checkedAt: new Date().toISOString() };
}

export default function AuditTrail() {
  const { chains, entries, broken, seals, checkedAt } = useLoaderData<typeof loader>();
  const badSeals = seals.filter((seal) => seal.problem);
  return (
    <>
      <h1>Audit trail</h1>
      <p className="muted">
        Every record keeps an append-only history, and its signatures a chain of their own; each entry carries a keyed
        hash (HMAC with the audit key, which the database does not hold) of its content and of the entry before it, and
        each chain&apos;s length is kept with it and sealed daily outside the database. This page recomputes every hash
        (as <code>npm run audit:verify</code> does), compares each chain with its head and the seals, and names the
        first problem of each chain.
      </p>
      <section className="card" aria-labelledby="verify-title">
        <h2 id="verify-title">Verification</h2>
        <p>
          Checked {entries} entries in {chains} chains at <time dateTime={checkedAt}>{checkedAt}</time>.
        </p>
        {broken.length === 0 ? (
          <p className="callout" role="status">
            Every chain holds: no entry was changed, removed or reordered after it was written, no chain is shorter than
            its head or a seal records, and every MOC&apos;s state has its entry
            {badSeals.length > 0 ? " (but see the seals below)" : ""}.
          </p>
        ) : (
          <div className="callout callout-danger" role="alert">
            <p>
              <strong>
                {broken.length} {broken.length === 1 ? "chain does" : "chains do"} not hold.
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
                    <tr key={`${link.kind}:${link.recordId}:${link.reason}`}>
                      <td>
                        {link.path ? (
                          <Link to={link.path}>
                            {link.label} {link.recordId}
                          </Link>
                        ) : (
                          `${link.label} ${link.recordId}`
                        )}
                      </td>
                      <td>{link.seq > 0 ? `#${link.seq}` : "—"}</td>
                      <td>{link.entryId ? <code>{link.entryId}</code> : "—"}</td>
                      <td>{link.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="seals-title">
        <h2 id="seals-title">Seals</h2>
        {seals.length === 0 ? (
          <p>No seal yet in this instance&apos;s DATA_DIR/seals: the first is written at the next daily run.</p>
        ) : (
          <p>
            {seals.length} {seals.length === 1 ? "seal" : "seals"} read, the latest of{" "}
            {seals.findLast((seal) => seal.day)?.day ?? "—"}.
          </p>
        )}
        {badSeals.length > 0 && (
          <div className="callout callout-danger" role="alert">
            <p>
              <strong>
                {badSeals.length} {badSeals.length === 1 ? "seal does" : "seals do"} not hold:
              </strong>
            </p>
            <ul>
              {badSeals.map((seal) => (
                <li key={seal.file}>
                  <code>{seal.file}</code>: {seal.problem}
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
    </>
  );
}
