// /archive/{mocs,pcrs}/:id/edit (admins and HSEQ).
import { archiveMeta } from "./__list";
import { ArchiveFormPage } from "./__record";
import { archiveEditAction, archiveEditLoader } from "./pages.server";

export const meta = archiveMeta((label, serial) => `Edit ${serial ?? ""} · ${label}`);
export const loader = archiveEditLoader;
export const action = archiveEditAction;
export default ArchiveFormPage;
