/**
 * Rich-text fields posted as plain text: without JavaScript a rich-text field is a textarea, and
 * what is typed there is text, not markup. The textarea names itself in this field, and the action
 * turns its value into HTML that shows it as typed: line breaks kept, "<script>" shown as text
 * instead of silently stripped by the sanitiser.
 */
export const PLAIN_TEXT_FIELD = "_plain-text";

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Paragraphs at blank lines, `<br>` at single line breaks, everything else escaped. */
export function plainTextToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

/** The form with every field named in `PLAIN_TEXT_FIELD` converted to HTML (and the marker removed). */
export function withPlainTextAsHtml(form: FormData): FormData {
  const names = form.getAll(PLAIN_TEXT_FIELD).filter((n): n is string => typeof n === "string");
  if (names.length === 0) return form;
  const converted = new FormData();
  for (const [key, value] of form.entries()) {
    if (key === PLAIN_TEXT_FIELD) continue;
    converted.append(key, typeof value === "string" && names.includes(key) ? plainTextToHtml(value) : value);
  }
  return converted;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

/**
 * Stored rich text as the text a textarea shows (the form without JavaScript): paragraphs and
 * line breaks kept, other markup dropped, entities decoded. `plainTextToHtml` turns it back.
 */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|blockquote|pre)>/gi, "\n\n")
    .replace(/<\/li>/gi, "\n")
    .replace(/<li[^>]*>/gi, "- ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
