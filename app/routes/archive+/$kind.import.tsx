// /archive/{mocs,pcrs}/import: CSV import, checked before anything is saved (admins and HSEQ).
import { archiveMeta } from "./__list";
import { ArchiveImportPage } from "./__import";
import { archiveImportAction, archiveImportLoader } from "./pages.server";

export const meta = archiveMeta((label) => `Import · ${label}`);
export const loader = archiveImportLoader;
export const action = archiveImportAction;
export default ArchiveImportPage;
