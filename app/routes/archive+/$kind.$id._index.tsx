// /archive/{mocs,pcrs}/:id: one paper record.
import { archiveMeta } from "~/components/archive";
import { ArchiveRecordPage } from "~/components/archive-record";
import { archiveRecordLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label, serial) => `${serial ?? "Record"} · ${label}`);
export const loader = archiveRecordLoader;
export default ArchiveRecordPage;
