// /archive/{mocs,pcrs}/:id: one paper record.
import { archiveLinks, archiveMeta } from "~/components/archive";
import { ArchiveRecordPage } from "~/components/archive-record";
import { archiveRecordLoader } from "~/web/archive-page.server";

export const meta = archiveMeta((label, serial) => `${serial ?? "Record"} · ${label}`);
export const links = archiveLinks;
export const loader = archiveRecordLoader;
export default ArchiveRecordPage;
