// /archive/{mocs,pcrs}/:id/delete: the confirmation, then the deletion (admins and HSEQ).
import { archiveMeta } from "~/components/archive";
import { ArchiveDeletePage } from "~/components/archive-record";
import { archiveDeleteAction, archiveDeleteLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label, serial) => `Delete ${serial ?? ""} · ${label}`);
export const loader = archiveDeleteLoader;
export const action = archiveDeleteAction;
export default ArchiveDeletePage;
