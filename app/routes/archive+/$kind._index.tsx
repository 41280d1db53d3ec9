// /archive/mocs and /archive/pcrs: the legacy records of one kind.
import { ArchiveListPage, archiveLinks, archiveMeta } from "~/components/archive";
import { archiveListLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label) => label);
export const links = archiveLinks;
export const loader = archiveListLoader;
export default ArchiveListPage;
