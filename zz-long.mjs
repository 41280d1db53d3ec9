import { chromium } from "playwright";
const base = "http://127.0.0.1:3101";
const [who, widthArg, p, prefix] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const ctx = await browser.newContext({ viewport: { width: Number(widthArg), height: 1400 }, javaScriptEnabled: process.env.NOJS !== "1" });
const page = await ctx.newPage();
await page.goto(base + "/login");
await page.getByLabel("Email").fill(who);
await page.getByLabel("Password").fill("bench-password");
await page.getByRole("button", { name: "Sign in" }).click();
await page.waitForURL((u) => u.pathname !== "/login");
await page.goto(base + p);
const h = await page.evaluate(() => document.documentElement.scrollHeight);
for (let y = 0, i = 0; y < Math.min(h, 8400); y += 1400, i++) {
  await page.screenshot({ path: `/tmp/sea/${prefix}-${i}.png`, clip: { x: 0, y, width: Number(widthArg), height: Math.min(1400, h - y) }, fullPage: true });
}
console.log(h);
await browser.close();
