// /archive/{mocs,pcrs}/:id/delete: the confirmation, then the deletion (admins and HSEQ).
import { archiveMeta } from "./__list";
import { ArchiveDeletePage } from "./__record";
import { archiveDeleteAction, archiveDeleteLoader } from "./pages.server";

export const meta = archiveMeta((label, serial) => `Delete ${serial ?? ""} · ${label}`);
export const loader = archiveDeleteLoader;
export const action = archiveDeleteAction;
export default ArchiveDeletePage;
