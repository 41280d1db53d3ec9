/**
 * A page's HTML as the server renders it for a signed-in reader: the route module's real loader
 * (a real Request with the session cookie, tests/helpers/request.ts) and its component, rendered
 * in React Router's static data router, which is what `useLoaderData` and `Link` read. The app's
 * layout (root.tsx) is left out: what the page itself shows is the subject.
 */
import { createElement, type ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from "react-router-dom/server";
import type { PublicUser } from "~/models/people/user.server";
import { tokenFor } from "./factories";
import { BASE, buildRequest } from "./request";

type PageRoute = { loader: (args: never) => unknown; default: ComponentType };

export async function pageHtml(route: PageRoute, who: PublicUser, path: string): Promise<string> {
  const request = await buildRequest({ path, token: await tokenFor(who), cookie: true });
  const handler = createStaticHandler([
    {
      id: "page",
      path: new URL(path, BASE).pathname,
      loader: async (args) => (await route.loader(args as never)) as Record<string, unknown>,
      Component: route.default,
    },
  ]);
  const context = await handler.query(request);
  if (context instanceof Response) throw new Error(`the page answered ${context.status}`);
  if (context.errors) throw Object.values(context.errors)[0];
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(createElement(StaticRouterProvider, { router, context, hydrate: false }));
}
