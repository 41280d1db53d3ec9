/**
 * The client build's files as the server serves them (app/server/client-files.ts) and the dynamic
 * compression beside them (app/server/compression.ts): compressed siblings chosen by Accept-Encoding,
 * immutable /assets, an hour for the rest, dot-files never, and every other request passed on
 * untouched, whatever its path.
 */
import express from "express";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientBuild, clientFiles } from "../../app/server/client-files";
import { dynamicCompression } from "../../app/server/compression";

const SCRIPT = `export const answer = "${"forty-two ".repeat(300)}";\n`;
let dir: string;
let server: http.Server;
let port: number;

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

function request(method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-client-files-"));
  await fs.mkdir(path.join(dir, "assets"));
  await fs.mkdir(path.join(dir, ".vite"));
  await fs.writeFile(path.join(dir, "assets/app-1a2b.js"), SCRIPT);
  await fs.writeFile(path.join(dir, "assets/app-1a2b.js.br"), zlib.brotliCompressSync(SCRIPT));
  await fs.writeFile(path.join(dir, "assets/app-1a2b.js.gz"), zlib.gzipSync(SCRIPT));
  await fs.writeFile(path.join(dir, "assets/plain 3c.css"), "body { color: navy }\n");
  await fs.writeFile(path.join(dir, "sw.js"), "self.addEventListener('fetch', () => {});\n");
  await fs.writeFile(path.join(dir, ".vite/manifest.json"), '{"secret":"build internals"}');
  const app = express();
  app.use(dynamicCompression());
  app.use(clientBuild(dir));
  // What Remix would answer: the path as the app saw it, and a body large enough to compress.
  app.use(
    (req, res) =>
      void res
        .status(404)
        .type("text/plain")
        .send(`app: ${req.path} ${"x".repeat(2048)}`),
  );
  server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(dir, { recursive: true, force: true });
});

describe("the client build's files", () => {
  it("lists the files once, as URL paths, without dot-files", () => {
    expect([...clientFiles(dir)].sort()).toEqual([
      "/assets/app-1a2b.js",
      "/assets/app-1a2b.js.br",
      "/assets/app-1a2b.js.gz",
      "/assets/plain 3c.css",
      "/sw.js",
    ]);
    expect(clientFiles(path.join(dir, "missing")).size).toBe(0);
  });

  it("serves the compressed sibling the client accepts, brotli first, immutable and without validators", async () => {
    for (const [accepted, encoding, decode] of [
      ["gzip, deflate, br", "br", zlib.brotliDecompressSync],
      ["gzip", "gzip", zlib.gunzipSync],
    ] as const) {
      const answer = await request("GET", "/assets/app-1a2b.js", { "Accept-Encoding": accepted });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-encoding"]).toBe(encoding);
      expect(answer.headers["content-type"]).toMatch(/^(text|application)\/javascript/);
      expect(answer.headers.vary).toMatch(/Accept-Encoding/i);
      expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(answer.headers.etag).toBeUndefined();
      expect(answer.headers["last-modified"]).toBeUndefined();
      expect(decode(answer.body).toString()).toBe(SCRIPT);
    }
    const plain = await request("GET", "/assets/app-1a2b.js");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    expect(plain.body.toString()).toBe(SCRIPT);
    const head = await request("HEAD", "/assets/app-1a2b.js", { "Accept-Encoding": "br" });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it("serves a percent-encoded name, and the files outside /assets for an hour with validators", async () => {
    const css = await request("GET", "/assets/plain%203c.css");
    expect(css.status).toBe(200);
    expect(css.body.toString()).toContain("navy");
    const worker = await request("GET", "/sw.js");
    expect(worker.status).toBe(200);
    expect(worker.headers["cache-control"]).toBe("public, max-age=3600");
    expect(worker.headers.etag).toBeTruthy();
  });

  it("passes every other request on to the app untouched", async () => {
    for (const [method, target] of [
      ["GET", "/.vite/manifest.json"],
      ["GET", "/assets/missing.js"],
      ["GET", "/assets/%ff"],
      ["GET", "/assets"],
      ["GET", "/api/floor"],
      ["POST", "/assets/app-1a2b.js"],
    ]) {
      const answer = await request(method!, target!);
      expect(answer.status, `${method} ${target}`).toBe(404);
      expect(answer.body.toString(), `${method} ${target}`).toMatch(/^app: /);
    }
    // Listed at start: a file written afterwards is not looked for on the disk.
    await fs.writeFile(path.join(dir, "assets/later-9.js"), "export {};\n");
    expect((await request("GET", "/assets/later-9.js")).body.toString()).toMatch(/^app: \/assets\/later-9.js/);
  });

  it("compresses the app's answers for a client that accepts it, and leaves the layer out for one that accepts nothing", async () => {
    const compressed = await request("GET", "/api/floor", { "Accept-Encoding": "gzip" });
    expect(compressed.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(compressed.body).toString()).toMatch(/^app: \/api\/floor/);
    const bare = await request("GET", "/api/floor");
    expect(bare.headers["content-encoding"]).toBeUndefined();
    expect(bare.headers.vary).toBeUndefined();
    expect(bare.body.toString()).toMatch(/^app: \/api\/floor x/);
  });
});
