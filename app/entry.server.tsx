// The app's record kinds, registered before any loader reads them (docs/decisions/060-record-kinds.md).
import "~/models/kinds/record-kinds.server";
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import type { EntryContext, HandleDocumentRequestFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { logger, pathOnly } from "~/utils/logger.server";
import { NonceProvider } from "~/utils/nonce";
import { InlineStylesheetProvider } from "~/utils/stylesheet";
import { stylesheetFor } from "~/utils/stylesheet.server";
import { contentSecurityPolicy } from "~/utils/security-headers.server";

export const streamTimeout = 5_000;

// The web process lives in the bundle too, so app/server/main.ts loads the app once (app/server/web.ts).
export { startWebServer } from "~/server/web";

const handleRequest: HandleDocumentRequestFunction = (
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) => {
  const json = jsonActionResponse(request, responseStatusCode, responseHeaders, remixContext);
  if (json) return json;
  const nonce = randomBytes(16).toString("base64");
  // The stylesheet linked, or in the page for a browser that has not had it yet (app/utils/stylesheet.server.ts).
  const stylesheet = stylesheetFor(request);
  if (stylesheet.setCookie) responseHeaders.append("Set-Cookie", stylesheet.setCookie);
  return new Promise((resolve, reject) => {
    let failed = false;
    // Pages are small: render completely before answering, so status codes are always right.
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <InlineStylesheetProvider value={stylesheet.inline}>
          <RemixServer context={remixContext} url={request.url} nonce={nonce} />
        </InlineStylesheetProvider>
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));
          if (!responseHeaders.has("Cache-Control")) responseHeaders.set("Cache-Control", "private, no-cache");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: failed ? 500 : responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          failed = true;
          logger().error({ err: error, path: pathOnly(request.url) }, "render error");
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000);
  });
};

export default handleRequest;

/**
 * A page whose route sets `handle.jsonActions` answers a form post that asks for JSON only
 * (`Accept: application/json`) with its action's data as JSON instead of the re-rendered page.
 * /login uses it to return `{ token, admin, onboarded }` to API clients (docs/decisions/001-session-tokens.md).
 */
function jsonActionResponse(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
): Response | null {
  const accept = request.headers.get("Accept") ?? "";
  if (request.method === "GET" || !accept.includes("application/json") || accept.includes("text/html")) return null;
  const { actionData, matches } = context.staticHandlerContext;
  const leaf = matches[matches.length - 1];
  if (!actionData || !leaf) return null;
  const handle = context.routeModules[leaf.route.id]?.handle as { jsonActions?: boolean } | undefined;
  if (!handle?.jsonActions) return null;
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(actionData[leaf.route.id] ?? null), { status, headers });
}

/** Errors thrown by loaders and actions, logged once, without query strings. */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  logger().error({ err: error, method: request.method, path: pathOnly(request.url) }, "unhandled error");
}
