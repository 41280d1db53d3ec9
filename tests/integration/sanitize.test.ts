/**
 * Rich-text fields are sanitised on write (docs/decisions/004-moc-workflow.md): a corpus of XSS payloads goes
 * through POST /api/newmoc (description-of-change) and the implementation's deviation-details,
 * and neither what is stored nor what is returned carries script, event handlers, style or
 * javascript: (or data:) URLs, while ordinary formatting survives. Plus `sanitizeRichText` itself.
 */
import { eq, and } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import { richTextToPlain, sanitizeRichText } from "~/utils/sanitize.server";
import { getDb } from "~/utils/db.server";
import { mocForms, mocs } from "#db/schema";
import { api } from "../helpers/api";
import { newMocBody, implementationForm, type Cast } from "../helpers/moc";
import {
  STEP_ENDPOINTS,
  expectError,
  issuePaths,
  makeCast,
  mocAt,
  mocTablesSnapshot,
  stepOk,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";

const CORPUS: [string, string][] = [
  ["script tag", `<script>alert(1)</script>`],
  ["script with src", `<script src="https://evil.example/x.js"></script>`],
  ["img onerror", `<img src=x onerror=alert(1)>`],
  ["img onerror, quoted and spaced", `<IMG SRC="x" ONERROR = "alert(1)">`],
  ["javascript: link", `<a href="javascript:alert(1)">click</a>`],
  ["JaVaScRiPt: link", `<a href="JaVaScRiPt:alert(1)">click</a>`],
  ["entity-encoded javascript:", `<a href="&#106;avascript:alert(1)">click</a>`],
  ["hex-entity javascript: with &colon;", `<a href="&#x6A;avascript&colon;alert(1)">click</a>`],
  ["tab inside javascript:", `<a href="java&#x09;script:alert(1)">click</a>`],
  ["leading space javascript:", `<a href="  javascript:alert(1)">click</a>`],
  ["vbscript: link", `<a href="vbscript:msgbox(1)">click</a>`],
  ["data: link", `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>`],
  ["data: image", `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`],
  ["svg onload", `<svg onload=alert(1)><circle r="1"/></svg>`],
  ["svg with script", `<svg><script>alert(1)</script></svg>`],
  ["iframe", `<iframe src="https://evil.example"></iframe>`],
  ["iframe srcdoc", `<iframe srcdoc="<script>alert(1)</script>"></iframe>`],
  ["style element", `<style>body { background: url(javascript:alert(1)) }</style>`],
  ["style attribute", `<p style="background:url(javascript:alert(1))">styled</p>`],
  ["event handler on an allowed tag", `<p onclick="alert(1)" onmouseover="alert(2)">hover</p>`],
  ["event handler on a link", `<a href="https://example.com" onfocus="alert(1)">ok</a>`],
  [
    "math mXSS",
    `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>`,
  ],
  ["math href", `<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>`],
  ["form formaction", `<form action="javascript:alert(1)"><button formaction="javascript:alert(2)">go</button></form>`],
  ["input autofocus", `<input onfocus=alert(1) autofocus>`],
  ["object", `<object data="javascript:alert(1)"></object>`],
  ["embed", `<embed src="javascript:alert(1)">`],
  ["base", `<base href="javascript:/">`],
  ["meta refresh", `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`],
  ["link stylesheet", `<link rel="stylesheet" href="https://evil.example/x.css">`],
  ["noscript breakout", `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`],
  ["nested script", `<scr<script>ipt>alert(1)</scr</script>ipt>`],
  ["comment hiding markup", `<div><!-- <img src=x onerror=alert(1)> --></div>`],
  ["protocol-relative link", `<a href="//evil.example/x">x</a>`],
  ["unclosed attribute", `<a href="https://example.com" title="x onmouseover=alert(1) ">t</a>`],
  ["template", `<template><img src=x onerror=alert(1)></template>`],
  ["td background", `<table><tr><td background="javascript:alert(1)">c</td></tr></table>`],
];

const FORBIDDEN_TAGS = [
  "script",
  "style",
  "iframe",
  "svg",
  "math",
  "form",
  "button",
  "input",
  "img",
  "object",
  "embed",
  "base",
  "meta",
  "link",
  "noscript",
  "template",
];
const SAFE_SCHEMES = ["http:", "https:", "mailto:", "tel:"];

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ":")
    .replace(/&tab;/gi, "\t")
    .replace(/&newline;/gi, "\n")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/**
 * Checks sanitised HTML: every `<` opens a well-formed tag (text `<` must be escaped), no tag is
 * dangerous, no attribute is an event handler or style, and every URL has a safe scheme.
 */
function expectSafeHtml(html: string): void {
  const TAG = /<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'=<>/]+(?:="[^"]*")?)*)\s*\/?>/g;
  expect(html.replace(TAG, ""), `stray markup in ${html}`).not.toContain("<");
  for (const match of html.matchAll(TAG)) {
    const tag = match[1]!.toLowerCase();
    expect(FORBIDDEN_TAGS, `tag <${tag}> in ${html}`).not.toContain(tag);
    for (const attr of match[2]!.matchAll(/([^\s"'=<>/]+)(?:="([^"]*)")?/g)) {
      const name = attr[1]!.toLowerCase();
      expect(name.startsWith("on"), `handler ${name} in ${html}`).toBe(false);
      expect(["style", "src", "srcdoc", "formaction", "action", "background", "xlink:href"]).not.toContain(name);
      if (name === "href") {
        // What a browser would see: entities decoded, control characters and spaces dropped.
        const url = [...decodeEntities(attr[2] ?? "")]
          .filter((c) => c.charCodeAt(0) > 0x20)
          .join("")
          .toLowerCase();
        const scheme = url.match(/^[a-z][a-z0-9+.-]*:/)?.[0];
        expect(scheme && SAFE_SCHEMES.includes(scheme), `href ${attr[2]} in ${html}`).toBe(true);
      }
    }
  }
  expect(html).not.toMatch(/javascript\s*:/i);
  expect(html).not.toMatch(/vbscript\s*:/i);
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toMatch(/<style/i);
}

const FORMATTING =
  `<p>Plain <strong>bold</strong>, <em>italic</em> and <u>underlined</u>.</p>` +
  `<ul><li>first</li><li>second</li></ul><ol start="3"><li>third</li></ol>` +
  `<p><a href="https://example.com/procedure?id=4&amp;v=2">procedure</a> and <a href="mailto:hseq@example.com">mail</a></p>` +
  `<table><thead><tr><th colspan="2">Head</th></tr></thead><tbody><tr><td>a</td><td rowspan="1">b</td></tr></tbody></table>` +
  `<h2>Heading</h2><blockquote>quote</blockquote>`;

function expectFormattingKept(html: string): void {
  for (const piece of [
    "<p>Plain <strong>bold</strong>, <em>italic</em> and <u>underlined</u>.</p>",
    "<ul><li>first</li><li>second</li></ul>",
    '<ol start="3"><li>third</li></ol>',
    '<a href="https://example.com/procedure?id=4&amp;v=2" rel="noopener noreferrer nofollow">procedure</a>',
    '<a href="mailto:hseq@example.com" rel="noopener noreferrer nofollow">mail</a>',
    '<table><thead><tr><th colspan="2">Head</th></tr></thead><tbody><tr><td>a</td><td rowspan="1">b</td></tr></tbody></table>',
    "<h2>Heading</h2>",
    "<blockquote>quote</blockquote>",
  ]) {
    expect(html).toContain(piece);
  }
}

// ---------------------------------------------------------------------------------------------

describe("sanitizeRichText", () => {
  it.each(CORPUS)("%s: nothing dangerous is left", (_name, payload) => {
    const out = sanitizeRichText(`<p>Keep me</p>${payload}`);
    expectSafeHtml(out);
    expect(out.startsWith("<p>Keep me</p>")).toBe(true);
    // Sanitising is stable: a second pass changes nothing.
    expect(sanitizeRichText(out)).toBe(out);
  });

  it("keeps ordinary formatting, lists, links and tables", () => {
    const out = sanitizeRichText(FORMATTING);
    expectFormattingKept(out);
    expectSafeHtml(out);
  });

  it.each([
    [`<p style="color:red" onclick="x()">t</p>`, "<p>t</p>"],
    [`<p>a</p><script>alert(1)</script>`, "<p>a</p>"],
    [`<a href="javascript:alert(1)">x</a>`, `<a rel="noopener noreferrer nofollow">x</a>`],
    [
      `<a href="https://example.com" target="_top">x</a>`,
      `<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">x</a>`,
    ],
    [`<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`, `<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`],
    [`<p>1 < 2 & 3 > 2</p>`, `<p>1 &lt; 2 &amp; 3 &gt; 2</p>`],
    [`  <p>trimmed</p>  `, `<p>trimmed</p>`],
    [`<span class="x" id="y" data-x="1">s</span>`, `<span>s</span>`],
  ])("%j becomes %j", (input, expected) => {
    expect(sanitizeRichText(input)).toBe(expected);
  });

  it("richTextToPlain gives the readable text, without script content", () => {
    const plain = richTextToPlain(`<p>Hello&nbsp;<strong>world</strong></p><script>x()</script><p>1 &lt; 2</p>`);
    expect(plain).toMatch(/^Hello world\s*1 < 2$/);
    expect(plain).not.toContain("x()");
  });
});

// ---------------------------------------------------------------------------------------------
// Through the API: stored and returned

let cast: Cast;
beforeAll(async () => {
  cast = await makeCast();
});

async function storedForm(mocId: string, kind: "originator" | "implementation") {
  const [row] = await getDb()
    .select({ data: mocForms.data })
    .from(mocForms)
    .where(and(eq(mocForms.mocId, mocId), eq(mocForms.kind, kind)));
  return row!.data;
}

async function readBack(mocId: string) {
  const res = await api(singlemocRoute, {
    path: "/api/singlemoc",
    query: { moc_id: mocId },
    token: await tokenOf(cast.originator),
  });
  expect(res.status, res.text).toBe(200);
  return res;
}

describe("POST /api/newmoc description-of-change", () => {
  it.each(CORPUS)("%s: stored and returned without anything dangerous", async (_name, payload) => {
    const res = await api(newmocRoute, {
      method: "POST",
      path: "/api/newmoc",
      token: await tokenOf(cast.originator),
      body: newMocBody(cast.implementer, { "description-of-change": { value: `<p>Keep me</p>${payload}` } }),
    });
    expect(res.status, res.text).toBe(200);
    const returned = res.body.data.originator_form["description-of-change"].value as string;
    expectSafeHtml(returned);
    expect(returned.startsWith("<p>Keep me</p>")).toBe(true);
    const stored = (await storedForm(res.body.data._id, "originator"))["description-of-change"]!.value as string;
    expect(stored).toBe(returned);
    const read = await readBack(res.body.data._id);
    expect(read.body.originator_form["description-of-change"].value).toBe(returned);
    expect(read.text).not.toMatch(/javascript:|<script|onerror=|<style/i);
  });

  it("keeps ordinary formatting", async () => {
    const res = await api(newmocRoute, {
      method: "POST",
      path: "/api/newmoc",
      token: await tokenOf(cast.originator),
      body: newMocBody(cast.implementer, { "description-of-change": { value: FORMATTING } }),
    });
    expect(res.status, res.text).toBe(200);
    const stored = (await storedForm(res.body.data._id, "originator"))["description-of-change"]!.value as string;
    expectFormattingKept(stored);
    expectSafeHtml(stored);
    expect(res.body.data.originator_form["description-of-change"].value).toBe(stored);
  });

  it.each([
    ["only a script", "<script>alert('I am text')</script>"],
    ["only a style", "<style>p { color: red }</style>"],
    ["only an image with a handler", `<img src=x onerror="alert('text')"><br>`],
  ])(
    "a description that is empty once sanitised (%s) is refused (400) and nothing is created",
    async (_name, payload) => {
      const before = await mocTablesSnapshot();
      const res = await api(newmocRoute, {
        method: "POST",
        path: "/api/newmoc",
        token: await tokenOf(cast.originator),
        body: newMocBody(cast.implementer, { "description-of-change": { value: payload } }),
      });
      expectError(res, 400);
      expect(issuePaths(res).some((p) => p.startsWith("description-of-change"))).toBe(true);
      expect(await mocTablesSnapshot()).toEqual(before);
    },
  );
});

describe("implementation deviation-details", () => {
  // MOCs waiting for their implementation, built a few at a time (each takes four steps).
  const ready: Doc[] = [];
  beforeAll(async () => {
    const wanted = CORPUS.length + 2;
    while (ready.length < wanted) {
      const batch = Math.min(6, wanted - ready.length);
      ready.push(...(await Promise.all(Array.from({ length: batch }, () => mocAt("e", cast)))));
    }
  }, 60_000);
  const nextMoc = () => ready.pop()!;

  it.each(CORPUS)("%s: stored and returned without anything dangerous", async (_name, payload) => {
    const moc = nextMoc();
    const doc = await stepOk("implementation", cast.implementer, {
      moc_id: moc._id,
      implementation: {
        ...implementationForm({ deviation: true }),
        "deviation-details": { value: `<p>Keep me</p>${payload}` },
      },
    });
    const returned = doc.implementation["deviation-details"].value as string;
    expectSafeHtml(returned);
    expect(returned.startsWith("<p>Keep me</p>")).toBe(true);
    expect(doc.extentionsAndDeviations.deviation.details).toBe(returned);
    expect((await storedForm(moc._id, "implementation"))["deviation-details"]!.value).toBe(returned);
    const [row] = await getDb().select({ deviations: mocs.deviations }).from(mocs).where(eq(mocs.id, moc._id));
    expect(row!.deviations!.deviation!.details).toBe(returned);
    const read = await readBack(moc._id);
    expect(read.body.implementation["deviation-details"].value).toBe(returned);
    expect(read.text).not.toMatch(/javascript:|<script|onerror=|<style/i);
  });

  it("details that are empty once sanitised are refused (400) and nothing changes", async () => {
    const moc = nextMoc();
    const before = await mocTablesSnapshot();
    const res = await api(STEP_ENDPOINTS.implementation.route, {
      method: "POST",
      path: "/api/submit/implementation",
      token: await tokenOf(cast.implementer),
      body: {
        moc_id: moc._id,
        implementation: {
          ...implementationForm({ deviation: true }),
          "deviation-details": { value: "<script>alert('text')</script>" },
        },
      },
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementation.deviation-details"]);
    expect(await mocTablesSnapshot()).toEqual(before);
  });

  it("keeps ordinary formatting", async () => {
    const moc = nextMoc();
    const doc = await stepOk("implementation", cast.implementer, {
      moc_id: moc._id,
      implementation: { ...implementationForm({ deviation: true }), "deviation-details": { value: FORMATTING } },
    });
    expectFormattingKept(doc.implementation["deviation-details"].value);
    expectFormattingKept(doc.extentionsAndDeviations.deviation.details);
  });
});
