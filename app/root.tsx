import { data, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  NavLink,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useLocation,
  useNavigate,
  useNavigation,
  useRevalidator,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import type { DraftsApplied } from "~/offline/draft-rules";
import { Form } from "~/components/form";
import { useEffect, useState } from "react";
import { authenticate } from "~/web/auth.server";
import { readFlash } from "~/utils/flash.server";
import { useNonce } from "~/utils/nonce";
import { ModulePreloads } from "~/utils/module-preloads";
import { AppStylesheet } from "~/utils/stylesheet";
import { PrefetchLinkedModules } from "~/components/prefetch-modules";
import { HeaderSearch } from "~/components/header-search";
import { canSeeInsights } from "~/models/authz/authz.server";
import { unreadNotificationCount } from "~/models/messages/notifications.server";
import { offlineSession } from "~/offline/session.server";

// The icon is written into the page: one request less on a cold load at sea.
const ICON = `data:image/svg+xml,${"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect width='32' height='32' rx='6' fill='#0b4f6c'/><path d='M8 22V10l8 7 8-7v12' fill='none' stroke='#fff' stroke-width='3' stroke-linejoin='round'/></svg>".replace(/[<>#]/g, encodeURIComponent)}`;

export const links: LinksFunction = () => [
  { rel: "icon", href: ICON, type: "image/svg+xml" },
  // Installable, with an offline shell (docs/decisions/045-offline-shell-and-drafts.md).
  { rel: "manifest", href: "/manifest.webmanifest" },
];

export const meta: MetaFunction = () => [{ title: "Change Management" }, { name: "theme-color", content: "#0b4f6c" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const result = await authenticate(request);
  const { flash, setCookie } = await readFlash(request);
  const user = result.ok
    ? {
        _id: result.identity.user._id,
        name: result.identity.user.name,
        email: result.identity.user.email,
        role: result.identity.user.role,
        department: result.identity.user.department,
        onboarded: result.identity.user.onboarded,
        seesInsights: canSeeInsights(result.identity.user),
        unreadNotifications: result.identity.user.onboarded ? await unreadNotificationCount(result.identity.user) : 0,
      }
    : null;
  // The session the service worker keeps this person's pages under (app/offline/session.server.ts).
  const session = result.ok ? offlineSession(result.identity) : null;
  return data({ user, session, flash }, setCookie ? { headers: { "Set-Cookie": setCookie } } : undefined);
}

export type RootData = Awaited<ReturnType<typeof loader>>["data"];

function Navigation({ user }: { user: NonNullable<RootData["user"]> }) {
  // The menu is open for the page it was opened on, and closes as soon as a navigation starts.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const open = openOn === pathname && !navigation.location;
  const items = [
    { to: "/", label: "Dashboard", end: true },
    { to: "/mocs", label: "MOCs" },
    { to: "/pcrs", label: "PCRs" },
    { to: "/archive/mocs", label: "Archive" },
    { to: "/reviews", label: "Reviews" },
    ...(user.seesInsights ? [{ to: "/insights", label: "Insight" }] : []),
    ...(user.role === "admin"
      ? [
          { to: "/admin/users", label: "Users" },
          { to: "/admin/outbox", label: "Outbox" },
          { to: "/admin/delegations", label: "Delegations" },
          { to: "/admin/audit", label: "Audit trail" },
        ]
      : []),
  ];
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <a href="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            MOC
          </span>
          <span className="brand-name">Change Management</span>
        </a>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpenOn(open ? null : pathname)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={open ? "nav open" : "nav"}>
          <ul>
            {user.onboarded &&
              items.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} end={item.end} prefetch="intent">
                    {item.label}
                  </NavLink>
                </li>
              ))}
          </ul>
          <div className="user-menu">
            {user.onboarded ? (
              <NavLink to="/notifications" className="notifications-link">
                Notifications
                {user.unreadNotifications > 0 ? (
                  <span className="notification-count">
                    {user.unreadNotifications}
                    <span className="visually-hidden"> unread</span>
                  </span>
                ) : null}
              </NavLink>
            ) : null}
            <NavLink to="/profile" className="user-name" title={user.email}>
              {user.name}
            </NavLink>
            {/* A whole-page post: the service worker answers it without a link too (app/offline/service-worker.ts). */}
            <Form method="post" action="/logout" reloadDocument>
              <button type="submit" className="button button-quiet">
                Sign out
              </button>
            </Form>
          </div>
        </nav>
        {user.onboarded ? <HeaderSearch /> : null}
      </div>
    </header>
  );
}

function FlashMessage({ flash }: { flash: NonNullable<RootData["flash"]> }) {
  return (
    <div className={`flash flash-${flash.kind}`} role={flash.kind === "error" ? "alert" : "status"}>
      {flash.message}
    </div>
  );
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  const root = useRouteLoaderData<typeof loader>("root");
  const user = root?.user ?? null;
  return (
    // The signed-in person and their session: the service worker keeps their pages under the
    // session and drops them when an answer names another or none (app/offline/pages.ts).
    <html
      lang="en"
      suppressHydrationWarning
      data-offline-user={user?._id}
      data-offline-session={root?.session?.id}
      data-offline-expires={root?.session?.expires}
    >
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <ModulePreloads />
        <Meta />
        <AppStylesheet />
        <Links />
        {/* Lets the stylesheet tell "no JavaScript" apart (the phone menu falls back to plain links). */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: "document.documentElement.classList.add('js')" }} />
      </head>
      <body>
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        {user ? <Navigation user={user} /> : null}
        <main id="main" tabIndex={-1} className={user ? "page" : "page page-bare"}>
          {root?.flash ? <FlashMessage flash={root.flash} /> : null}
          {children}
        </main>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { user, session } = useLoaderData<typeof loader>();
  const signedIn = !!user;
  const sessionId = session?.id ?? null;
  // The service worker and the drafts that wait for the link load after the page, on their own.
  useEffect(() => {
    void import("~/offline/client").then((offline) => offline.start(signedIn, sessionId));
  }, [signedIn, sessionId]);
  useDraftsApplied();
  return (
    <>
      <Outlet />
      <PrefetchLinkedModules />
    </>
  );
}

/**
 * Forms written offline and sent when the link returned (app/offline/drafts.ts) changed what this
 * page shows: it asks for its data again, or, when the step it is the form of went, shows the record.
 */
function useDraftsApplied() {
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  useEffect(() => {
    const onApplied = (event: Event) => {
      const { goTo } = (event as CustomEvent<DraftsApplied>).detail;
      if (goTo !== location.pathname + location.search) navigate(goTo);
      else revalidator.revalidate();
    };
    document.addEventListener("drafts:applied", onApplied);
    return () => document.removeEventListener("drafts:applied", onApplied);
  }, [navigate, revalidator]);
}

export function ErrorBoundary() {
  const error = useRouteError();
  let status = 500;
  let message = "Something went wrong on our side. The change was not applied; please try again.";
  if (isRouteErrorResponse(error)) {
    status = error.status;
    const given = typeof error.data === "string" ? error.data : (error.data as { message?: string } | null)?.message;
    if (status === 404)
      message = given || "There is nothing at this address. It may have been deleted, or the link is wrong.";
    else if (status === 403) message = given || "You do not have access to this page.";
    else if (status < 500) message = given || error.statusText;
  }
  // A post or a page whose answer never came (the link dropped): a form that may wait is kept
  // under "Waiting to send" (docs/decisions/045-offline-shell-and-drafts.md).
  if (error instanceof TypeError && /fetch|network/i.test(error.message)) {
    message =
      "The link dropped before the answer came. A form you were sending is kept under “Waiting to send” and goes again when the link is back.";
  }
  const titles: Record<number, string> = { 403: "Not allowed", 404: "Not found", 500: "Something went wrong" };
  return (
    <section className="error-page" aria-labelledby="error-title">
      <p className="error-code">{status}</p>
      <h1 id="error-title">{titles[status] ?? "Something went wrong"}</h1>
      <p>{message}</p>
      <p>
        <a href="/" className="button">
          Go to the dashboard
        </a>
      </p>
    </section>
  );
}
