// /archive/mocs and /archive/pcrs: the legacy records of one kind.
import { ArchiveListPage, archiveMeta } from "./__list";
import { archiveListLoader } from "./pages.server";

export const meta = archiveMeta((label) => label);
export const loader = archiveListLoader;
export default ArchiveListPage;
