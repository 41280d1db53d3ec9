import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { z } from "zod";
import { SubmitButton } from "~/components/submit";
import { formatDateTime } from "~/components/moc";
import { Pagination } from "~/components/pagination";
import {
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  NOTIFICATIONS_PAGE_SIZE,
} from "~/models/messages/notifications.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: `Notifications${data?.unread ? ` (${data.unread} unread)` : ""}${data?.unreadOnly ? " · Unread only" : ""} · Change Management`,
  },
];

const querySchema = z.object({
  show: z.enum(["all", "unread"]).default("all").catch("all"),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const query = querySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const unreadOnly = query.show === "unread";
  const result = await listNotifications(user, { unreadOnly, page: query.page });
  return {
    ...result,
    unreadOnly,
    page: query.page,
    pages: Math.max(1, Math.ceil(result.total / NOTIFICATIONS_PAGE_SIZE)),
  };
}

const actionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("open"), id: z.uuid() }),
  z.object({ intent: z.literal("read"), id: z.uuid() }),
  z.object({ intent: z.literal("read-all") }),
]);

export async function action({ request }: ActionFunctionArgs) {
  const user = await requirePageUser(request);
  const back = `/notifications${new URL(request.url).search}`;
  const parsed = actionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return redirectWithFlash(back, { kind: "error", message: "That action was not understood." });
  const input = parsed.data;
  if (input.intent === "read-all") {
    const n = await markAllNotificationsRead(user);
    return redirectWithFlash(back, {
      kind: "success",
      message:
        n === 0 ? "Nothing was unread." : `${n} ${n === 1 ? "notification is" : "notifications are"} marked read.`,
    });
  }
  const result = await runForPage(() => markNotificationRead(user, input.id));
  if (!result.ok) return redirectWithFlash(back, { kind: "error", message: result.error.message });
  if (input.intent === "open" && result.value.link) {
    return redirectWithFlash(result.value.link, { kind: "info", message: "Marked read." });
  }
  return redirectWithFlash(back, { kind: "success", message: "Marked read." });
}

export default function Notifications() {
  const { notifications, total, unread, unreadOnly, page, pages } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Notifications</h1>
          <p className="muted">
            {unread === 0 ? "Everything is read." : `${unread} unread`} · What was emailed to you, newest first.
          </p>
        </div>
        <div className="row">
          <nav aria-label="Show" className="row">
            {unreadOnly ? (
              <Link to="/notifications">Show all</Link>
            ) : (
              <Link to="/notifications?show=unread">Show unread only</Link>
            )}
            <Link to="/notifications/preferences">Choose which notices you get</Link>
          </nav>
          {unread > 0 ? (
            <Form method="post">
              <SubmitButton name="intent" value="read-all" className="button" pendingText="Marking…">
                Mark all as read
              </SubmitButton>
            </Form>
          ) : null}
        </div>
      </div>
      <section className="card" aria-label="Notifications">
        {notifications.length === 0 ? (
          <p className="empty">{unreadOnly ? "No unread notifications." : "Nothing has been sent to you yet."}</p>
        ) : (
          <ul className="notification-list">
            {notifications.map((n) => (
              <li key={n.id} className={n.readAt ? "notification" : "notification notification-unread"}>
                <div className="notification-main">
                  {n.readAt ? null : <span className="badge badge-info">Unread</span>}{" "}
                  {n.link ? (
                    <Form method="post" className="inline-form">
                      <input type="hidden" name="id" value={n.id} />
                      <button type="submit" name="intent" value="open" className="link-button">
                        {n.subject}
                      </button>
                    </Form>
                  ) : (
                    <strong>{n.subject}</strong>
                  )}
                  <br />
                  <span className="muted">
                    {n.recordLabel ?? (n.recordType ? "A deleted record" : "General")} ·{" "}
                    <time dateTime={n.createdAt}>{formatDateTime(n.createdAt)}</time>
                    {n.readAt ? " · Read" : ""}
                  </span>
                </div>
                {n.readAt ? null : (
                  <Form method="post">
                    <input type="hidden" name="id" value={n.id} />
                    <button
                      type="submit"
                      name="intent"
                      value="read"
                      className="button button-small"
                      aria-label={`Mark read: ${n.subject}`}
                    >
                      Mark as read
                    </button>
                  </Form>
                )}
              </li>
            ))}
          </ul>
        )}
        {total > 0 ? (
          <p className="muted">
            {total} {total === 1 ? "notification" : "notifications"}
            {unreadOnly ? " unread" : ""}
          </p>
        ) : null}
      </section>
      <Pagination page={page} pages={pages} previous="← Newer" next="Older →" />
    </>
  );
}
