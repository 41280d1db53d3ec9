// /archive/{mocs,pcrs}/new: add a paper record (admins and HSEQ).
import { archiveMeta } from "~/components/archive";
import { ArchiveFormPage } from "~/components/archive-record";
import { archiveNewAction, archiveNewLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label) => `New · ${label}`);
export const loader = archiveNewLoader;
export const action = archiveNewAction;
export default ArchiveFormPage;
