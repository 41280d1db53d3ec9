/**
 * A follow-up MOC (issue 42, docs/decisions/058-effectiveness-review.md): raised from a cancelled
 * plan item or from an effectiveness review found partly or not effective. The link opens Part A
 * with `followUp=moc:<id>` and `item=<plan item id>` or `review=1`; the server reads the title,
 * vessel and reason from the original MOC (never from the URL). Zod-free: the pages read it.
 */

/** Where "Raise a follow-up MOC" leads: Part A, naming the original and what it follows up. */
export const followUpHref = (mocId: string, from: { item?: string; review?: true }) => {
  const query = new URLSearchParams({ followUp: `moc:${mocId}` });
  if (from.item) query.set("item", from.item);
  if (from.review) query.set("review", "1");
  return `/mocs/new?${query.toString()}`;
};

/** The follow-up's title: "Follow-up: <title>", within the 120 characters a title may have. */
export const followUpTitle = (title: string | null, serial: string) =>
  `Follow-up: ${title ?? `MOC ${serial}`}`.slice(0, 120);
