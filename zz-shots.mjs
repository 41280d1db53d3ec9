import { chromium } from "playwright";
const base = "http://127.0.0.1:3101";
const [who = "bench-00@bench.test", widthArg = "375", ...paths] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const ctx = await browser.newContext({ viewport: { width: Number(widthArg), height: 800 }, javaScriptEnabled: process.env.NOJS !== "1" });
const page = await ctx.newPage();
await page.goto(base + "/login");
await page.getByLabel("Email").fill(who);
await page.getByLabel("Password").fill("bench-password");
await page.getByRole("button", { name: "Sign in" }).click();
await page.waitForURL((u) => u.pathname !== "/login");
for (const p of paths) {
  await page.goto(base + p);
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth, h: document.documentElement.scrollHeight, header: document.querySelector("header")?.getBoundingClientRect().height }));
  const name = `/tmp/sea/${widthArg}${process.env.NOJS === "1" ? "-nojs" : ""}-${who.split("@")[0]}-${p.replace(/[^a-z0-9]+/gi, "_")}.png`;
  await page.screenshot({ path: name, fullPage: process.env.FULL === "1" });
  console.log(JSON.stringify({ p, ...m, over: m.sw > m.cw, name }));
}
await browser.close();
