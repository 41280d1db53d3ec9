/**
 * Pages at sea (docs/decisions/032-pages-at-sea.md): the JavaScript budget check fails a route that
 * goes over its budget, and a streamed answer keeps streaming through the compression middleware
 * (its first bytes reach the client before its last row is produced).
 */
import type { ServerBuild } from "@remix-run/node";
import express from "express";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { dynamicCompression } from "../../app/server/compression";
import { remixRequestHandler } from "../../app/server/request-handler";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A browser build with Remix's manifest: a dashboard route and a route whose own module is `routeBytes` long. */
async function fakeBuild(routeBytes: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-budget-"));
  await fs.mkdir(path.join(dir, "assets"));
  const code = (n: number) => `export const x = "${randomBytes(Math.ceil(n / 2)).toString("hex")}";\n`;
  await fs.writeFile(path.join(dir, "assets/entry.js"), code(2_000));
  await fs.writeFile(path.join(dir, "assets/root.js"), code(1_000));
  await fs.writeFile(path.join(dir, "assets/_index.js"), code(1_000));
  // Random hex compresses to about half: twice the budget in bytes is well over it compressed.
  await fs.writeFile(path.join(dir, "assets/report.js"), code(routeBytes));
  const manifest = {
    entry: { module: "/assets/entry.js", imports: [] },
    routes: {
      root: { id: "root", path: "", module: "/assets/root.js", imports: [] },
      "routes/_index": { id: "routes/_index", parentId: "root", index: true, module: "/assets/_index.js", imports: [] },
      "routes/report": { id: "routes/report", parentId: "root", path: "report", module: "/assets/report.js" },
    },
    url: "/assets/manifest-test.js",
    version: "test",
  };
  await fs.writeFile(path.join(dir, "assets/manifest-test.js"), `window.__remixManifest=${JSON.stringify(manifest)};`);
  return dir;
}

function runBudget(buildDir: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/js-budget.ts", "--build", buildDir],
      { cwd: ROOT },
      (error, stdout) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

describe("the JavaScript budget check", () => {
  it("passes a build whose routes are within budget", async () => {
    const dir = await fakeBuild(20_000);
    const { code, stdout } = await runBudget(dir);
    expect(stdout).toContain("every route within budget");
    expect(code).toBe(0);
    await fs.rm(dir, { recursive: true });
  });

  it("fails when a route goes over its budget, and names it", async () => {
    const dir = await fakeBuild(2 * 1024 * 150);
    const { code, stdout } = await runBudget(dir);
    expect(code).toBe(1);
    expect(stdout).toMatch(/OVER\s+\d+\.\d \/ 100\.0 KiB\s+routes\/report/);
    expect(stdout).toContain("1 route(s) over budget: routes/report");
    expect(stdout).toMatch(/ok\s+\d+\.\d \/ 100\.0 KiB\s+routes\/_index/);
    await fs.rm(dir, { recursive: true });
  });
});

describe("compression of a streamed answer", () => {
  /**
   * The app's own request handler behind the compression middleware, serving one resource route
   * whose body sends a header line, then waits until the client has received bytes before it sends
   * the last row. A buffering encoder would never send those bytes: the request would hang.
   */
  async function streamingServer() {
    let released!: () => void;
    const clientGotBytes = new Promise<void>((resolve) => (released = resolve));
    const loader = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            const text = new TextEncoder();
            controller.enqueue(text.encode("serial,title\n"));
            await clientGotBytes;
            controller.enqueue(text.encode("1-2026,the last row\n"));
            controller.close();
          },
        }),
        { headers: { "Content-Type": "text/csv; charset=utf-8" } },
      );
    const build = {
      mode: "production",
      entry: { module: { default: () => new Response("no documents here", { status: 500 }) } },
      routes: {
        root: { id: "root", path: "", module: { default: () => null } },
        "routes/export": { id: "routes/export", parentId: "root", path: "export", module: { loader } },
      },
      assets: { entry: { module: "/entry.js", imports: [] }, routes: {}, url: "/manifest.js", version: "1" },
      publicPath: "/",
      assetsBuildDirectory: "build/client",
      future: { v3_singleFetch: true },
      isSpaMode: false,
    } as unknown as ServerBuild;
    const app = express();
    app.use(dynamicCompression());
    app.use(remixRequestHandler(build, { appUrl: "http://127.0.0.1" }));
    const server = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return { server, port: (server.address() as AddressInfo).port, release: () => released() };
  }

  for (const encoding of ["br", "gzip", "identity"]) {
    it(`sends the first bytes before the last row is produced (${encoding})`, async () => {
      const { server, port, release } = await streamingServer();
      try {
        const result = await new Promise<{ encoding: string; body: Buffer }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no bytes arrived before the last row: buffered")), 5_000);
          http
            .get({ host: "127.0.0.1", port, path: "/export", headers: { "Accept-Encoding": encoding } }, (res) => {
              const chunks: Buffer[] = [];
              res.on("data", (chunk: Buffer) => {
                if (chunks.length === 0) release();
                chunks.push(chunk);
              });
              res.on("end", () => {
                clearTimeout(timer);
                resolve({
                  encoding: String(res.headers["content-encoding"] ?? "identity"),
                  body: Buffer.concat(chunks),
                });
              });
            })
            .on("error", reject);
        });
        expect(result.encoding).toBe(encoding);
        const text =
          encoding === "br"
            ? zlib.brotliDecompressSync(result.body).toString()
            : encoding === "gzip"
              ? zlib.gunzipSync(result.body).toString()
              : result.body.toString();
        expect(text).toBe("serial,title\n1-2026,the last row\n");
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  }
});
