import { fetchImage, proxyQuery } from "~/models/ops/image-proxy.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, readQuery } from "~/utils/http.server";
import { logger } from "~/utils/logger.server";

const route = apiRoute({
  async GET({ request }) {
    const user = await requireApiUser(request);
    const { url } = readQuery(request, proxyQuery);
    const image = await fetchImage(url, { userId: user._id }).catch((error: unknown) => {
      // Host only: a query string can carry tokens of the image's site.
      const host = URL.canParse(url) ? new URL(url).host : null;
      logger().info({ host, status: (error as { status?: number }).status }, "image proxy refused");
      throw error;
    });
    return new Response(image.body, {
      status: 200,
      headers: {
        "Content-Type": image.contentType,
        ...(image.length !== null ? { "Content-Length": String(image.length) } : {}),
        "Cache-Control": "public, max-age=31536000, immutable",
        "Access-Control-Allow-Origin": "*",
        "Cross-Origin-Resource-Policy": "cross-origin",
        "X-Content-Type-Options": "nosniff",
        // Never rendered as a document, whatever a browser makes of the bytes.
        "Content-Security-Policy": "default-src 'none'; sandbox",
      },
    });
  },
});

export const loader = route.loader;
export const action = route.action;
