import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { formatDate } from "~/components/moc";
import { canWriteReviews } from "~/models/authz/authz.server";
import { listReviews } from "~/models/review/review.server";
import { requirePageUser } from "~/web/auth.server";
import { todayUtc } from "~/web/review-page.server";

export const meta: MetaFunction = () => [{ title: "Year-end reviews · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const today = todayUtc();
  const reviews = await listReviews(user);
  return {
    canWrite: canWriteReviews(user),
    rows: reviews.map((r) => ({
      id: r._id,
      year: r.year,
      title: r.title,
      summary: r.moc_summary,
      actions: r.actions.length,
      openActions: r.actions.filter((a) => a.status !== "done").length,
      overdue: r.actions.filter((a) => a.status !== "done" && a.due < today).length,
      participants: r.participants.length,
      updatedAt: r.updatedAt,
      updatedBy: r.updatedBy?.name ?? null,
    })),
  };
}

export default function ReviewList() {
  const { rows, canWrite } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Year-end reviews</h1>
          <p className="muted">
            The year&apos;s MOCs in numbers, what worked, what to improve and who follows up: {rows.length}{" "}
            {rows.length === 1 ? "review" : "reviews"}
          </p>
        </div>
        {canWrite ? (
          <Link to="/reviews/new" className="button button-primary">
            New review
          </Link>
        ) : null}
      </div>
      <div className="card table-wrap">
        {rows.length === 0 ? (
          <p className="empty">No year-end reviews yet.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">Year-end reviews, newest year first</caption>
            <thead>
              <tr>
                <th scope="col">Year</th>
                <th scope="col">Title</th>
                <th scope="col">MOCs</th>
                <th scope="col">Follow-up actions</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td data-label="Year">{r.year}</td>
                  <td data-label="Title">
                    <Link to={`/reviews/${r.id}`} className="review-link">
                      {r.title}
                    </Link>
                    <br />
                    <span className="muted">
                      {r.participants} {r.participants === 1 ? "participant" : "participants"}
                    </span>
                  </td>
                  <td data-label="MOCs">
                    <strong>{r.summary.total}</strong> raised
                    <br />
                    <span className="muted">
                      {r.summary.completed} completed · {r.summary.declined} declined · {r.summary.open} open
                    </span>
                  </td>
                  <td data-label="Follow-up actions">
                    {r.actions === 0 ? "None" : `${r.openActions} of ${r.actions} open`}
                    {r.overdue ? (
                      <>
                        <br />
                        <span className="badge badge-danger">{r.overdue} overdue</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label="Updated">
                    {formatDate(r.updatedAt)}
                    {r.updatedBy ? (
                      <>
                        <br />
                        <span className="muted">by {r.updatedBy}</span>
                      </>
                    ) : null}
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
