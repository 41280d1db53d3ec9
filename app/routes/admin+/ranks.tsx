/**
 * /admin/ranks: the ranks on board (issue 41, docs/decisions/055-circulations.md), in the order
 * they are offered and listed. Admins add, rename, move, deactivate and reactivate them; each
 * change is in the audit trail (the settings chain), shown below the list. Plain forms, one per
 * rank, that work without JavaScript.
 */
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ListChanges, OrderedRowButtons, RenameField } from "~/components/ordered-list";
import { SubmitButton } from "~/components/forms";
import { historyOf } from "~/models/audit/audit.server";
import { canManageRanks } from "~/models/authz/authz.server";
import { rankActionSchema } from "~/models/people/ranks.schema";
import { changeRanks, listRanks, RANKS_RECORD } from "~/models/people/ranks.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";
import { requirePageUserWho } from "~/web/auth.server";

export const meta: MetaFunction = () => [{ title: "Ranks · Administration · Change Management" }];

/** What the 403 page says to anyone the guard refuses. */
const REFUSAL = "Only administrators can change the list of ranks.";

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePageUserWho(request, canManageRanks, REFUSAL);
  const [ranks, history] = await Promise.all([listRanks(), historyOf("settings", RANKS_RECORD)]);
  return { ranks, history: history.slice(-10).reverse() };
}

/** A refused change: which form (the rank's, or "add"), what was typed, and why. */
type Refusal = { form: string; name?: string; message: string };

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requirePageUserWho(request, canManageRanks, REFUSAL);
  const form = Object.fromEntries(await request.formData());
  const which = typeof form.rank === "string" && form.intent !== "add" ? form.rank : "add";
  const typed = typeof form.name === "string" ? form.name : undefined;
  const parsed = rankActionSchema.safeParse(form);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "That change was not understood.";
    return data<Refusal>({ form: which, name: typed, message }, { status: 400 });
  }
  const result = await runForPage(() => changeRanks(actor, parsed.data));
  if (!result.ok) {
    return data<Refusal>({ form: which, name: typed, message: result.error.message }, { status: result.error.status });
  }
  return redirectWithFlash("/admin/ranks", { kind: "success", message: result.value });
}

export default function RanksPage() {
  const { ranks, history } = useLoaderData<typeof loader>();
  const refusal = useActionData<typeof action>();
  const errorOf = (form: string) => (refusal && refusal.form === form ? refusal : undefined);
  const addError = errorOf("add");
  return (
    <>
      <p>
        <Link to="/admin">← Administration</Link>
      </p>
      <h1>Ranks on board</h1>
      <p className="muted">
        The ranks people hold on board, in the order crew lists show them. Set a person&apos;s rank on their page under{" "}
        <Link to="/admin/users">Users</Link> (or through the identity provider&apos;s groups). A renamed rank is renamed
        for everyone who holds it; a deactivated one stays with the people who hold it but is no longer offered.
      </p>
      <section className="card" aria-labelledby="ranks-title">
        <h2 id="ranks-title">The list ({ranks.length})</h2>
        {ranks.length === 0 ? (
          <p className="empty">There are no ranks yet.</p>
        ) : (
          <ol className="waiting-list">
            {ranks.map((rank, i) => {
              const error = errorOf(rank.name);
              const inputId = `rank-name-${i}`;
              return (
                <li key={rank.name}>
                  <div className="break-anywhere">
                    <strong>{rank.name}</strong> {rank.active ? null : <span className="badge">Not offered</span>}
                    <br />
                    <span className="muted">
                      {rank.holders === 0
                        ? "Nobody holds it"
                        : `${rank.holders} ${rank.holders === 1 ? "person" : "people"}`}
                    </span>
                  </div>
                  <Form method="post" className="row">
                    <input type="hidden" name="rank" value={rank.name} />
                    <RenameField
                      id={inputId}
                      name={rank.name}
                      typed={error?.name}
                      error={error?.message}
                      maxLength={60}
                    />
                    <OrderedRowButtons name={rank.name} index={i} count={ranks.length} active={rank.active} />
                  </Form>
                </li>
              );
            })}
          </ol>
        )}
      </section>
      <section className="card" aria-labelledby="add-rank-title">
        <h2 id="add-rank-title">Add a rank</h2>
        {/* A fresh form after each addition (the last one's name and error are gone). */}
        <Form method="post" className="row" key={ranks.length}>
          <input type="hidden" name="intent" value="add" />
          <div className="field">
            <label htmlFor="new-rank">Name</label>
            <input
              id="new-rank"
              name="name"
              maxLength={60}
              required
              defaultValue={addError?.name ?? ""}
              aria-invalid={addError ? true : undefined}
              aria-describedby={addError ? "new-rank-error" : undefined}
            />
            {addError ? (
              <ul className="field-errors" id="new-rank-error">
                <li>{addError.message}</li>
              </ul>
            ) : null}
          </div>
          <SubmitButton pendingText="Adding…">Add at the end</SubmitButton>
        </Form>
      </section>
      <ListChanges id="ranks-history-title" history={history} />
    </>
  );
}
