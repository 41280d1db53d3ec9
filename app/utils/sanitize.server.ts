/**
 * Rich-text (`<html>`) fields are sanitised on write with an allowlist (docs/decisions/004-moc-workflow.md):
 * formatting, lists, links, tables; no script, style, event handlers or javascript: URLs.
 */
import sanitizeHtml from "sanitize-html";
import { Invalid } from "./errors";

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "strike",
    "sub",
    "sup",
    "mark",
    "code",
    "pre",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "a",
    "hr",
    "span",
    "div",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "th",
    "td",
    "caption",
    "colgroup",
    "col",
  ],
  allowedAttributes: {
    a: ["href", "title", "target", "rel"],
    th: ["colspan", "rowspan", "scope"],
    td: ["colspan", "rowspan"],
    col: ["span"],
    colgroup: ["span"],
    ol: ["start", "type"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  // Links open safely in a new tab and pass no referrer or opener to the other site.
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, ...(attribs.target ? { target: "_blank" } : {}), rel: "noopener noreferrer nofollow" },
    }),
  },
};

export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}

/**
 * A required rich-text field, sanitised: 400 (with `path`) when nothing readable is left, e.g. a
 * value that was only a `<script>` (its text passes the schema's check, but is not kept).
 */
export function sanitizeRequiredRichText(html: string, path: string, what: string): string {
  const clean = sanitizeRichText(html);
  if (!richTextToPlain(clean)) {
    throw new Invalid(`${what} has no text once unsafe markup is removed`, [{ path, message: `${what} is required` }]);
  }
  return clean;
}

/** Plain text of a rich-text value (for emails, lists and search). */
export function richTextToPlain(html: string): string {
  // Block boundaries become spaces, so "<p>a</p><p>b</p>" reads "a b", not "ab".
  const spaced = html.replace(/<\/(p|li|h[1-6]|div|tr|td|th|blockquote|pre)>|<br\s*\/?>/gi, " ");
  return sanitizeHtml(spaced, { allowedTags: [], allowedAttributes: {} })
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}
