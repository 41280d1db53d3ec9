import { defineConfig } from "@playwright/test";
import fs from "node:fs";

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

/**
 * Debian's headless shell (package chromium-headless-shell, .ci/run installs it): the browser
 * Playwright itself runs headless, without the full browser's window machinery, and about a third
 * less work per test on two cores than /usr/bin/chromium, which stays the fallback.
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const BROWSER = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  outputDir: "../../test-results/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // A whole workflow per test on two shared cores: a budget for the slowest, not the typical, run.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["json", { outputFile: "../../test-results/e2e.json" }]] : [["list"]],
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    // Each test is a fresh browser profile, where the service worker would precache the whole
    // build (220 files) again: tests about the worker (offline.spec.ts, circulation-at-sea.spec.ts)
    // allow it with `test.use({ serviceWorkers: "allow" })`; no other test reads what it adds.
    serviceWorkers: "block",
    launchOptions: {
      executablePath: BROWSER,
      // This machine has no network: keep Chromium from trying to reach Google's services.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "js", use: { javaScriptEnabled: true } },
    // Without JavaScript run the tests whose subject is a form or a page that must work without it
    // (issue 39). Not here: accessibility scans and live updates (*.live.spec.ts), which need
    // JavaScript; raw-socket tests (*.socket.spec.ts) and tests tagged @http (plain HTTP from the
    // test process), which use no browser; tests tagged @js, about what JavaScript adds; and tests
    // tagged @once, which read what the server renders (a read view, a 403 or 404 page, headers,
    // a print view), the same bytes with JavaScript off, so one run with it covers them.
    {
      name: "no-js",
      use: { javaScriptEnabled: false },
      testIgnore: /(a11y|live|socket)\.spec\.ts$/,
      grepInvert: /@(http|js|once)\b/,
    },
  ],
  webServer: {
    // The production build (made once: scripts/build-once.ts), on a fresh database, with a known first admin.
    command: "node --import tsx scripts/build-once.ts && node --import tsx tests/e2e/server.ts",
    cwd: "../..",
    url: `${BASE_URL}/healthz`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    // The server logs errors only (tests/e2e/server.ts): a 500 shows its cause beside the test.
    stdout: "pipe",
    stderr: "pipe",
    env: { E2E_PORT: String(PORT) },
    // SIGTERM lets the server stop its embedded PostgreSQL; the default SIGKILL would orphan it.
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
