// /archive/mocs and /archive/pcrs: the legacy records of one kind.
import { ArchiveListPage, archiveMeta } from "~/components/archive";
import { archiveListLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label) => label);
export const loader = archiveListLoader;
export default ArchiveListPage;
