// /archive/{mocs,pcrs}/:id: one paper record.
import { archiveMeta } from "./__list";
import { ArchiveRecordPage } from "./__record";
import { archiveRecordAction, archiveRecordLoader } from "./pages.server";

export const meta = archiveMeta((label, serial) => `${serial ?? "Record"} · ${label}`);
export const loader = archiveRecordLoader;
export const action = archiveRecordAction;
export default ArchiveRecordPage;
