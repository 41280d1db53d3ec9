import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { canSeeOperations } from "~/models/authz/authz.server";
import { backupOverview } from "~/models/ops/backup.server";
import { requirePageUserWho } from "~/web/auth.server";

export const meta: MetaFunction = () => [{ title: "Administration · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUserWho(request, canSeeOperations, "Only administrators can see the administration page.");
  return backupOverview();
}

function size(bytes: number | null): string {
  if (bytes === null) return "–";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

const when = (iso: string) => <time dateTime={iso}>{iso.slice(0, 16).replace("T", " ")} UTC</time>;

export default function Administration() {
  const { last, runs, schedule } = useLoaderData<typeof loader>();
  const latest = runs[0];
  return (
    <>
      <h1>Administration</h1>
      <nav aria-label="Administration" className="row">
        <Link to="/admin/users">Users</Link>
        <Link to="/admin/outbox">Outbox</Link>
        <Link to="/admin/delegations">Delegations</Link>
        <Link to="/admin/vessels">Vessels</Link>
        <Link to="/admin/ranks">Ranks</Link>
        <Link to="/admin/references">Reference types</Link>
        <Link to="/admin/audit">Audit trail</Link>
        <Link to="/admin/risk">Risk matrix</Link>
      </nav>
      <section className="card" aria-labelledby="backups-title">
        <h2 id="backups-title">Backups</h2>
        {last ? (
          <p role="status" className="break-anywhere">
            Last backup: {when(last.finishedAt)}, <strong>{size(last.bytes)}</strong>
            {last.file ? (
              <>
                {" "}
                (<code>{last.file}</code>)
              </>
            ) : null}
            .
          </p>
        ) : (
          <p className="callout callout-danger" role="status">
            No backup has been taken yet.
          </p>
        )}
        {latest?.status === "failed" ? (
          <p className="callout callout-danger" role="alert">
            The latest backup, at {when(latest.finishedAt)}, failed: {latest.error}
          </p>
        ) : null}
        <p className="muted break-anywhere">
          {schedule?.enabled
            ? `Taken daily on the schedule "${schedule.cron}" (UTC) into ${schedule.dir}; the newest of each of the last ${schedule.keepDaily} days and of each of the last ${schedule.keepWeekly} weeks are kept. `
            : "No scheduled backups on this instance (they are on by default with the embedded database). "}
          Take one by hand with <code>npm run backup -- FILE</code>; restore with <code>npm run restore -- FILE</code>.
        </p>
        {runs.length ? (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Recent backups</caption>
              <thead>
                <tr>
                  <th scope="col">Finished</th>
                  <th scope="col">By</th>
                  <th scope="col">Result</th>
                  <th scope="col">Size</th>
                  <th scope="col">File</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <tr key={run.id}>
                    <td>{when(run.finishedAt)}</td>
                    <td>{run.trigger === "schedule" ? "Schedule" : "npm run backup"}</td>
                    <td>{run.status === "ok" ? "Written" : `Failed: ${run.error ?? ""}`}</td>
                    <td>{size(run.bytes)}</td>
                    <td>{run.file ? <code>{run.file}</code> : "–"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </>
  );
}
