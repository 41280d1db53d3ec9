import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { pendingActions } from "~/models/actions.server";
import { requirePageUser } from "~/utils/auth.server";

export const meta: MetaFunction = () => [{ title: "Dashboard · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  return { name: user.name, waiting: await pendingActions(user) };
}

export default function Dashboard() {
  const { name, waiting } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Good to see you, {name.split(" ")[0]}</h1>
          <p className="muted">What needs you today, and what changed on your records.</p>
        </div>
        <div className="row">
          <Link to="/mocs/new" className="button button-primary">
            New MOC
          </Link>
          <Link to="/pcrs/new" className="button">
            New PCR
          </Link>
        </div>
      </div>
      <section className="card" aria-labelledby="waiting-title">
        <h2 id="waiting-title">Waiting on me</h2>
        {waiting.length === 0 ? <p className="empty">Nothing is waiting on you right now.</p> : null}
      </section>
    </>
  );
}
