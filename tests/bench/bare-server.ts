/**
 * The bare references of `npm run bench` (issue 43): the same constant ~2 KB JSON as the app's
 * floor route (`GET /api/floor`), served without any of the app's layers, so the floor can be read
 * as a share of what the framework itself costs on this machine in the same minutes.
 *
 *   node --import tsx tests/bench/bare-server.ts <kind> <port>
 *
 * `node` - plain node:http; `express` - bare Express 4; `remix` - a bare Remix v2 resource route:
 * a minimal server build (a root and the floor route, whose loader is the app's own) handled by
 * `createRequestHandler` from @remix-run/node behind a ten-line Express adapter. Prints `ready`
 * when listening. Run in its own process so the load generator does not share its event loop.
 */
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import express from "express";
import { createServer } from "node:http";
import { loader as floorLoader } from "../../app/routes/api+/floor";

process.env.BENCH_FLOOR = "1";
const [kind, portText] = process.argv.slice(2);
const port = Number(portText);
const HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };
/** The floor route's own body (its loader), read once for the servers that do not run a loader. */
const BODY = await (await floorLoader({ request: new Request("http://bare/api/floor") })).text();

function listen(server: ReturnType<typeof createServer>) {
  server.keepAliveTimeout = 65_000;
  server.listen(port, "127.0.0.1", () => console.log("ready"));
}

if (kind === "node") {
  listen(createServer((_req, res) => res.writeHead(200, HEADERS).end(BODY)));
} else if (kind === "express") {
  const app = express();
  app.get("/api/floor", (_req, res) => void res.set(HEADERS).send(BODY));
  listen(createServer(app));
} else if (kind === "remix") {
  const build = {
    mode: "production",
    entry: { module: { default: () => new Response("Not found", { status: 404 }) } },
    routes: {
      root: { id: "root", path: "", module: { default: () => null } },
      "routes/api.floor": {
        id: "routes/api.floor",
        parentId: "root",
        path: "api/floor",
        module: { loader: floorLoader },
      },
    },
    assets: { entry: { imports: [], module: "" }, routes: {}, url: "", version: "bare" },
    publicPath: "/assets/",
    assetsBuildDirectory: "build/client",
    future: {},
    isSpaMode: false,
  } as unknown as ServerBuild;
  const handle = createRequestHandler(build, "production");
  const app = express();
  // The adapter: an Express request as a Fetch Request, the Response written back.
  app.all("*", async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const response = await handle(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers }));
    res.status(response.status);
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  listen(createServer(app));
} else {
  console.error(`unknown kind ${kind}: node, express or remix`);
  process.exit(2);
}
