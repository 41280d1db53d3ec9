import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { DelegationForm, DelegationTable } from "~/components/delegations";
import { canManageDelegations } from "~/models/authz/authz.server";
import { allDelegations } from "~/models/people/delegation.server";
import { requirePageUserWho } from "~/web/auth.server";
import { delegationPageAction, isDelegationPost } from "~/web/delegation-page.server";
import { activeUserOptions } from "~/web/moc-page.server";
import { Invalid } from "~/utils/errors";
import { pageError } from "~/utils/page.server";

export const meta: MetaFunction = () => [{ title: "Delegations · Change Management" }];

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can manage everyone's delegations.";

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUserWho(request, canManageDelegations, REFUSAL);
  const [delegations, people] = await Promise.all([allDelegations(), activeUserOptions()]);
  return { delegations, people, today: new Date().toISOString().slice(0, 10) };
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageDelegations, REFUSAL);
  const form = await request.formData();
  if (!isDelegationPost(form)) pageError(new Invalid("That action was not understood."));
  return delegationPageAction(form, actor, "/admin/delegations");
}

export default function AdminDelegations() {
  const { delegations, people, today } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Delegations</h1>
          <p className="muted">
            Who stands in for whom while away. Every delegation, change and end is recorded with who made it.
          </p>
        </div>
      </div>
      <section className="card" aria-labelledby="all-title">
        <h2 id="all-title">All delegations</h2>
        <DelegationTable rows={delegations} today={today} canEnd={() => true} caption="All delegations" />
      </section>
      <section className="card" aria-labelledby="new-title">
        <h2 id="new-title">Name a delegate for someone</h2>
        <DelegationForm users={people} reply={result ?? null} forSomeone />
      </section>
    </>
  );
}
