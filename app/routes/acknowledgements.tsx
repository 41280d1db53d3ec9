import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { Pagination } from "~/components/pagination";
import { AcknowledgementList } from "~/components/pending-acknowledgements";
import { pendingAcknowledgements } from "~/models/circulations/circulations.server";
import { requirePageUser } from "~/web/auth.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `To read and acknowledge${data?.total ? ` (${data.total})` : ""} · Change Management` },
];

/** How many one page lists. */
const PAGE_SIZE = 20;

const querySchema = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });

/** Every circulation waiting for the caller to read and acknowledge, due soonest first, a page at a time. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const { page } = querySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const { items, total } = await pendingAcknowledgements(user, { page, pageSize: PAGE_SIZE });
  return { items, total, page, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

export default function Acknowledgements() {
  const { items, total, page, pages } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>To read and acknowledge</h1>
          <p className="muted">
            {total === 0
              ? "Nothing waits for you to read."
              : `${total} ${total === 1 ? "change waits" : "changes wait"} for you to read and acknowledge "read and understood", due soonest first.`}
          </p>
        </div>
        <div className="row">
          <Link to="/" className="button">
            ← Dashboard
          </Link>
        </div>
      </div>
      <section className="card" aria-label="To read and acknowledge">
        {items.length === 0 ? (
          <p className="empty">{total === 0 ? "You have read everything sent to you." : "No more on this page."}</p>
        ) : (
          <AcknowledgementList items={items} />
        )}
        <Pagination page={page} pages={pages} />
      </section>
    </>
  );
}
