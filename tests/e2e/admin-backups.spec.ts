/**
 * /admin shows the last backup and its size (docs/decisions/030-backups.md), with JavaScript on and
 * off: `npm run backup -- FILE` taken from the running app's database (the embedded PostgreSQL under
 * the e2e data folder, or the e2e database on DATABASE_URL's server) appears there with its size.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ADMIN, expect, signIn, test } from "./fixtures";
import { e2eDatabaseUrl } from "./second-instance";
import { E2E_SECRETS } from "./secrets";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const port = process.env.E2E_PORT ?? "3100";

test(
  "the administration page shows the last backup, its size and file",
  { tag: "@once" },
  async ({ page }, testInfo) => {
    const dir = mkdtempSync(path.join(tmpdir(), "cm-e2e-backup-"));
    const file = path.join(dir, `admin-${testInfo.project.name}.cmbackup`);
    try {
      // The backup's digest is keyed with the server's audit key (docs/decisions/030-backups.md).
      const env = process.env.DATABASE_URL
        ? { ...process.env, AUDIT_KEY: E2E_SECRETS.AUDIT_KEY, DATABASE_URL: await e2eDatabaseUrl() }
        : {
            ...process.env,
            AUDIT_KEY: E2E_SECRETS.AUDIT_KEY,
            DATABASE_URL: "",
            DATA_DIR: path.join(root, `.data/e2e${port === "3100" ? "" : `_${port}`}`),
          };
      const done = await run("npm", ["run", "-s", "backup", "--", file], { cwd: root, env });
      expect(done.stdout).toMatch(/rows of \d+ tables written/);
      const bytes = statSync(file).size;
      const shown = bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

      await signIn(page, ADMIN.email, ADMIN.password);
      await page.goto("/admin");
      const section = page.getByRole("region", { name: "Backups" });
      const status = section.getByRole("status");
      await expect(status).toContainText("Last backup:");
      await expect(status).toContainText(shown);
      await expect(status).toContainText(path.basename(file));
      const row = section.getByRole("row").filter({ hasText: path.basename(file) });
      await expect(row).toContainText("npm run backup");
      await expect(row).toContainText("Written");
      await expect(row).toContainText(shown);
      await expect(section).toContainText(/kept\. Take one by hand|instance \(they .*\)\. Take one by hand/);

      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: testInfo.outputPath(`admin-backups-${width}.png`), fullPage: true });
        // Nothing wider than the screen: the table scrolls inside its own box.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        // Long file and folder names wrap inside the card instead of running past its edge.
        const spill = await section.locator("p").evaluateAll((ps) => ps.map((p) => p.scrollWidth - p.clientWidth));
        expect(
          spill.every((px) => px <= 0),
          `paragraphs wider than their box at ${width} px: ${spill}`,
        ).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
