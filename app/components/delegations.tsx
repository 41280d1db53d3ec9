import { Form } from "~/components/form";
import { ErrorList, SubmitButton } from "./submit";
import { formatDate } from "./moc";

export type DelegationRow = {
  id: string;
  userId: string;
  userName: string;
  delegateId: string;
  delegateName: string;
  startsOn: string;
  endsOn: string;
  createdByName: string;
  ended: boolean;
};

type Reply = { message: string; fields: Record<string, string[]>; values: Record<string, string> } | null;

const stateOf = (d: DelegationRow, today: string) =>
  d.ended ? "Ended early" : d.endsOn < today ? "Over" : d.startsOn > today ? "Planned" : "In force";

/** A table of delegations with an "End now" button on those still to come or in force. */
export function DelegationTable({
  rows,
  today,
  canEnd,
  caption,
}: {
  rows: DelegationRow[];
  today: string;
  canEnd: (row: DelegationRow) => boolean;
  caption: string;
}) {
  if (rows.length === 0) return <p className="empty">No delegations.</p>;
  return (
    <div className="table-wrap">
      <table className="stack-on-phone">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Away</th>
            <th scope="col">Delegate</th>
            <th scope="col">Period</th>
            <th scope="col">State</th>
            <th scope="col">Named by</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => {
            const state = stateOf(d, today);
            return (
              <tr key={d.id}>
                <td data-label="Away">{d.userName}</td>
                <td data-label="Delegate">{d.delegateName}</td>
                <td data-label="Period">
                  {formatDate(d.startsOn)} – {formatDate(d.endsOn)}
                </td>
                <td data-label="State">{state}</td>
                <td data-label="Named by">{d.createdByName}</td>
                <td data-label="Actions">
                  {(state === "In force" || state === "Planned") && canEnd(d) ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="end-delegation" />
                      <input type="hidden" name="delegationId" value={d.id} />
                      <SubmitButton className="button" pendingText="Ending…">
                        End the delegation to {d.delegateName}
                      </SubmitButton>
                    </Form>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The form naming a delegate and a period; `people` lists the absent person too on the admin page. */
export function DelegationForm({
  users,
  reply,
  forSomeone,
}: {
  users: { _id: string; name: string }[];
  reply: Reply;
  forSomeone: boolean;
}) {
  const value = (key: string) => reply?.values[key] ?? "";
  const errorsOf = (key: string) => reply?.fields[key] ?? [];
  const field = (key: string, label: string, input: React.ReactNode) => (
    <div className="field">
      <label htmlFor={`delegation-${key}`}>{label}</label>
      {input}
      <ErrorList id={`delegation-${key}-error`} errors={errorsOf(key)} />
    </div>
  );
  const select = (key: string) => (
    <select
      id={`delegation-${key}`}
      name={key}
      defaultValue={value(key)}
      required
      aria-invalid={errorsOf(key).length ? true : undefined}
      aria-describedby={errorsOf(key).length ? `delegation-${key}-error` : undefined}
    >
      <option value="">Choose a person</option>
      {users.map((u) => (
        <option key={u._id} value={u._id}>
          {u.name}
        </option>
      ))}
    </select>
  );
  const date = (key: string) => (
    <input
      id={`delegation-${key}`}
      name={key}
      type="date"
      defaultValue={value(key)}
      required
      aria-invalid={errorsOf(key).length ? true : undefined}
      aria-describedby={errorsOf(key).length ? `delegation-${key}-error` : undefined}
    />
  );
  return (
    <Form method="post" className="stack">
      <input type="hidden" name="intent" value="delegate" />
      {reply && Object.keys(reply.fields).length === 0 ? (
        <p className="field-errors" role="alert">
          {reply.message}
        </p>
      ) : null}
      {forSomeone ? field("userId", "Who is away", select("userId")) : null}
      {field("delegateId", "Delegate (acts for you and gets your MOC emails)", select("delegateId"))}
      {field("startsOn", "From", date("startsOn"))}
      {field("endsOn", "To (included)", date("endsOn"))}
      <SubmitButton pendingText="Saving…">Name the delegate</SubmitButton>
    </Form>
  );
}
