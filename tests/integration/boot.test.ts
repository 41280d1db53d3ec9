/**
 * Starting up: the environment is validated with a one-line reason, and embedded PostgreSQL
 * recovers from a process that was killed without stopping its database.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "#db/embedded";
import { loadEnv } from "~/utils/env.server";
import { unsupportedNode } from "~/server/node-version";

const run = promisify(execFile);

describe("environment", () => {
  it("a production start without SESSION_SECRET stops with a one-line reason", async () => {
    const env = { ...process.env, NODE_ENV: "production", SESSION_SECRET: "", DATABASE_URL: "" } as NodeJS.ProcessEnv;
    const result = await run(process.execPath, ["--import", "tsx", "app/server/main.ts"], { env }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("Invalid environment: SESSION_SECRET is required in production");
  });

  it("rejects short secrets and half an admin, and fills defaults", () => {
    const source = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;
    expect(() => loadEnv(source({ SESSION_SECRET: "short" }))).toThrow("at least 32 characters");
    expect(() => loadEnv(source({ ADMIN_EMAIL: "a@example.com" }))).toThrow(
      "ADMIN_EMAIL and ADMIN_PASSWORD go together",
    );
    const env = loadEnv(source({ PORT: "4000" }));
    expect(env.APP_URL).toBe("http://localhost:4000");
    expect(env.REMINDER_CRON).toBe("0 8 * * *");
  });
});

describe("the Node it runs on", () => {
  it("accepts Node 22.12 and later, refuses anything older with one line", () => {
    for (const ok of ["22.12.0", "22.20.1", "24.0.0", "24.21.0", "26.10.0"]) expect(unsupportedNode(ok), ok).toBeNull();
    for (const old of ["20.20.2", "22.11.9", "18.20.0"]) {
      expect(unsupportedNode(old)).toBe(
        `Node ${old} is too old: Change Management needs Node 22.12.0 or later. ` +
          "Start it with npm (npm start, npm run worker), which uses the Node 24 that npm install puts in node_modules.",
      );
    }
  });

  it("the server and the worker started on the machine's own older Node stop with that line, before loading anything", async () => {
    // The machines this project runs on ship Node 20 at /usr/bin/node; npm scripts use Node 24.
    const system = "/usr/bin/node";
    const version = (await run(system, ["-p", "process.versions.node"])).stdout.trim();
    expect(unsupportedNode(version), `this check needs an older Node at ${system}`).not.toBeNull();
    for (const entry of ["app/server/main.ts", "jobs/worker.ts"]) {
      const result = await run(system, ["--import", "tsx", entry], { env: { ...process.env, DATABASE_URL: "" } }).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code, entry).toBe(1);
      expect(result.stderr.trim(), entry).toBe(unsupportedNode(version));
    }
  });
});

describe("embedded PostgreSQL", () => {
  it("starts again after its owner was killed, stopping the orphaned server", async () => {
    const dataDir = path.resolve(".data/test-embedded-recovery");
    await fs.rm(dataDir, { recursive: true, force: true });
    // The first owner is a separate process, killed with SIGKILL once its database answers.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import("./db/embedded.ts").then(async ({ startEmbeddedPostgres }) => {
           const db = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
           console.log("READY " + db.url);
           setInterval(() => {}, 1000);
         })`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const firstUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = out.match(/READY (\S+)/);
        if (match) resolve(match[1]!);
      });
      child.once("exit", () => reject(new Error(`first owner exited early: ${out}`)));
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const messages: string[] = [];
    const second = await startEmbeddedPostgres({ dataDir, log: (m) => messages.push(m) });
    try {
      expect(messages.some((m) => /still running; stopping it|stale lock/.test(m))).toBe(true);
      const sql = postgres(second.url, { max: 1, onnotice: () => {} });
      expect((await sql`select 1 as one`)[0]!.one).toBe(1);
      await sql.end();
      // The orphan is gone: its address no longer answers.
      const old = postgres(firstUrl, { max: 1, connect_timeout: 2, onnotice: () => {} });
      await expect(old`select 1`).rejects.toThrow();
      await old.end({ timeout: 1 });
    } finally {
      await second.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
