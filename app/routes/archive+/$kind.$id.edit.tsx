// /archive/{mocs,pcrs}/:id/edit (admins and HSEQ).
import { archiveMeta } from "~/components/archive";
import { ArchiveFormPage } from "~/components/archive-record";
import { archiveEditAction, archiveEditLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label, serial) => `Edit ${serial ?? ""} · ${label}`);
export const loader = archiveEditLoader;
export const action = archiveEditAction;
export default ArchiveFormPage;
