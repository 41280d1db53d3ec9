/**
 * A record's "Linked records" section (issue 42, docs/decisions/057-record-links-and-references.md),
 * shared by the MOC, PCR, archive and year-end review pages: each link in the words it reads from
 * this record ("Procedure changed by PCR 3-2026 — Mooring"), the other record a link to its page;
 * a Remove button (a plain post to /links/:id/remove) for those who may; "Link a record" opens
 * /links/new, which searches and links without JavaScript.
 */
import { Link } from "@remix-run/react";
import { Form } from "~/components/form";
import { capitalise } from "~/models/shared/labels";

export const LINKS_ANCHOR = "linked-records";

type LinkEnd = { ref: string; label: string; title: string; path: string };

/** What a record page's loader gives the section (app/web/record-links-page.server.ts `linksPanel`). */
export type LinksPanel = {
  ref: string;
  links: { _id: string; seen: string; other: LinkEnd; mayRemove: boolean }[];
  mayAdd: boolean;
};

/** `readOnly`: no buttons (the review's print page). */
export function RecordLinks({
  panel,
  here,
  readOnly = false,
}: {
  panel: LinksPanel | null | undefined;
  here: string;
  readOnly?: boolean;
}) {
  if (!panel) return null;
  const { links, ref } = panel;
  const mayAdd = panel.mayAdd && !readOnly;
  return (
    <section className="card" aria-labelledby="linked-records-title" id={LINKS_ANCHOR}>
      <h2 id="linked-records-title">Linked records</h2>
      {links.length === 0 ? (
        <p className="empty">No linked records.</p>
      ) : (
        <ul className="waiting-list">
          {links.map((link) => (
            <li key={link._id}>
              <div className="break-anywhere">
                {capitalise(link.seen)} <Link to={link.other.path}>{link.other.label}</Link>
                {link.other.title ? ` — ${link.other.title}` : ""}
              </div>
              {link.mayRemove && !readOnly ? (
                <Form method="post" action={`/links/${link._id}/remove`} className="no-print">
                  <input type="hidden" name="back" value={here} />
                  <button type="submit" className="button button-small">
                    Remove<span className="visually-hidden"> the link to {link.other.label}</span>
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {mayAdd ? (
        <p className="no-print">
          <Link to={`/links/new?from=${encodeURIComponent(ref)}`} className="button">
            Link a record
          </Link>
        </p>
      ) : null}
    </section>
  );
}
