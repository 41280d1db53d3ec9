// /archive/{mocs,pcrs}/import: CSV import, checked before anything is saved (admins and HSEQ).
import { archiveLinks, archiveMeta } from "~/components/archive";
import { ArchiveImportPage } from "~/components/archive-import";
import { archiveImportAction, archiveImportLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label) => `Import · ${label}`);
export const links = archiveLinks;
export const loader = archiveImportLoader;
export const action = archiveImportAction;
export default ArchiveImportPage;
