/**
 * The app's record kinds (docs/decisions/060-record-kinds.md), registered when this module is
 * first imported: every entry point imports it before it serves (app/entry.server.tsx for the
 * Remix build, app/server/main.ts, jobs/worker.ts, the scripts, tests/helpers/setup.ts). Each
 * kind's entry is in its own file beside this one; the modules that work across kinds read them
 * through app/models/record-kind/record-kind.ts.
 */
import { registerRecordKinds } from "../record-kind/record-kind";
import { ARCHIVE_MOC_KIND, ARCHIVE_PCR_KIND } from "./archive.server";
import { VESSEL_KIND } from "./fleet.server";
import { MOC_KIND } from "./moc.server";
import { PCR_KIND } from "./pcr.server";
import { DELEGATION_KIND, USER_KIND } from "./people.server";
import { REVIEW_KIND } from "./review.server";
import { SETTINGS_KIND } from "./settings.server";

export const RECORD_KINDS = [
  MOC_KIND,
  PCR_KIND,
  USER_KIND,
  ARCHIVE_MOC_KIND,
  ARCHIVE_PCR_KIND,
  REVIEW_KIND,
  DELEGATION_KIND,
  SETTINGS_KIND,
  VESSEL_KIND,
] as const;

registerRecordKinds(RECORD_KINDS);
