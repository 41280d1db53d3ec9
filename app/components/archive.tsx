/** A legacy record's status, on the archive's pages and in search results. */
export function LegacyStatusBadge({ status }: { status: string }) {
  return status === "closed" ? (
    <span className="badge badge-success">Closed</span>
  ) : (
    <span className="badge badge-warning">Open</span>
  );
}
