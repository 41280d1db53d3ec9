import { redirect } from "@remix-run/node";

/** /archive: the legacy MOCs come first (the navigation's "Archive"). */
export const loader = () => redirect("/archive/mocs");
