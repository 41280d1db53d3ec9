// /archive/{mocs,pcrs}/import: CSV import, checked before anything is saved (admins and HSEQ).
import { archiveMeta } from "~/components/archive";
import { ArchiveImportPage } from "~/components/archive-import";
import { archiveImportAction, archiveImportLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label) => `Import · ${label}`);
export const loader = archiveImportLoader;
export const action = archiveImportAction;
export default ArchiveImportPage;
