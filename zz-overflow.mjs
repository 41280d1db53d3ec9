import { chromium } from "playwright";
const base = "http://127.0.0.1:3101";
const [who, widthArg, ...paths] = process.argv.slice(2);
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
  const bad = await page.evaluate(() => {
    const out = [];
    const skip = (el) => el.closest(".table-wrap, .visually-hidden, .skip-link, input, textarea, select, pre, svg, .default-submit");
    for (const el of document.querySelectorAll("body, body *")) {
      if (skip(el)) continue;
      const cs = getComputedStyle(el);
      if (cs.overflowX === "auto" || cs.overflowX === "scroll") continue;
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName}.${el.className} ${el.scrollWidth}>${el.clientWidth}`);
    }
    return [document.documentElement.scrollWidth, document.documentElement.clientWidth, out.slice(0, 6)];
  });
  console.log(p, JSON.stringify(bad));
}
await browser.close();
