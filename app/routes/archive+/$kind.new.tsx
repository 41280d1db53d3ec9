// /archive/{mocs,pcrs}/new: add a paper record (admins and HSEQ).
import { archiveMeta } from "./__list";
import { ArchiveFormPage } from "./__record";
import { archiveNewAction, archiveNewLoader } from "./pages.server";

export const meta = archiveMeta((label) => `New · ${label}`);
export const loader = archiveNewLoader;
export const action = archiveNewAction;
export default ArchiveFormPage;
