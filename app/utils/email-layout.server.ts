/**
 * One layout for every email, in HTML and plain text: the record's serial number, what happened,
 * what the recipient is expected to do, and a link to the record.
 */
export type EmailContent = {
  /** e.g. "MOC 12-2026" — leads the subject and the heading. */
  record: { label: string; url: string } | null;
  /** What happened, one sentence: "Jane Doe approved the implementer assessment." */
  event: string;
  /** What the recipient should do now, or null when it is for information only. */
  expectation: string | null;
  /** Optional facts shown as a small table (target date, stage, reason…). */
  details?: [label: string, value: string][];
  /** Subject without the record prefix; defaults to the event. */
  subject?: string;
};

export type RenderedEmail = { subject: string; html: string; text: string };

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * Text for a single-line mail header (the subject): control characters, line and paragraph
 * separators become spaces, whatever the text came from (a user's name, a MOC title, an old row).
 */
export function headerText(value: string): string {
  return value
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim();
}

/** What the footer of a notice a person can turn off offers (docs/decisions/029-oidc-and-notifications.md). */
export type EmailChoices = { kind: string; preferencesUrl: string; unsubscribeUrl: string };

export function renderEmail(
  content: EmailContent,
  recipientName: string,
  appUrl: string,
  choices?: EmailChoices,
): RenderedEmail {
  const headline = content.subject ?? content.event;
  const subject = headerText(content.record ? `[${content.record.label}] ${headline}` : headline);
  const link = content.record ? new URL(content.record.url, `${appUrl}/`).toString() : appUrl;
  const details = content.details ?? [];
  const expectation = content.expectation ?? "No action is needed from you; this is for your information.";

  const text = [
    `Hello ${recipientName},`,
    "",
    content.event,
    "",
    expectation,
    ...(details.length ? ["", ...details.map(([label, value]) => `${label}: ${value}`)] : []),
    "",
    content.record ? `Open ${content.record.label}: ${link}` : `Open Change Management: ${link}`,
    "",
    "— Change Management",
    "You receive this because you are involved in this record.",
    ...(choices
      ? [
          `Stop emails like this (${choices.kind}): ${choices.unsubscribeUrl}`,
          `Choose which notices you get: ${choices.preferencesUrl}`,
        ]
      : []),
  ].join("\n");

  const rows = details
    .map(
      ([label, value]) =>
        `<tr><td style="padding:4px 12px 4px 0;color:#5a6876">${escapeHtml(label)}</td><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join("");
  const html = `<!doctype html>
<html lang="en"><body style="margin:0;background:#f4f6f8;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#18222d">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border:1px solid #d5dce3;border-radius:8px">
<tr><td style="background:#0b4f6c;color:#fff;padding:14px 20px;border-radius:8px 8px 0 0;font-weight:700">${escapeHtml(content.record?.label ?? "Change Management")}</td></tr>
<tr><td style="padding:20px">
<p style="margin:0 0 12px">Hello ${escapeHtml(recipientName)},</p>
<p style="margin:0 0 12px;font-size:17px;font-weight:600">${escapeHtml(content.event)}</p>
<p style="margin:0 0 16px">${escapeHtml(expectation)}</p>
${rows ? `<table role="presentation" style="margin:0 0 16px;font-size:14px">${rows}</table>` : ""}
<p style="margin:0 0 8px"><a href="${escapeHtml(link)}" style="display:inline-block;background:#0b4f6c;color:#fff;text-decoration:none;padding:10px 16px;border-radius:6px;font-weight:600">Open ${escapeHtml(content.record?.label ?? "Change Management")}</a></p>
<p style="margin:16px 0 0;font-size:12px;color:#5a6876">You receive this because you are involved in this record. Link: ${escapeHtml(link)}</p>
${choices ? `<p style="margin:8px 0 0;font-size:12px;color:#5a6876"><a href="${escapeHtml(choices.unsubscribeUrl)}" style="color:#0b4f6c">Stop emails like this (${escapeHtml(choices.kind)})</a> · <a href="${escapeHtml(choices.preferencesUrl)}" style="color:#0b4f6c">Choose which notices you get</a></p>` : ""}
</td></tr></table></td></tr></table></body></html>`;
  return { subject, html, text };
}
