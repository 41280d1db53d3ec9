/**
 * Completing a MOC raised without a title or scope (docs/decisions/036-vessels-and-crew-access.md): its
 * record page asks the originator (or an admin) to record them, POST /api/titleAndVessel does the
 * same. Only what is missing is recorded; a title or scope already recorded changes through Part A.
 * This records context, not approved content, so it is open at every stage (the trail shows it).
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import { mocForms } from "#db/schema";
import { Conflict } from "~/utils/errors";
import { canManageMoc } from "../authz/authz.server";
import { mocTitle, optionalField, vesselRef } from "./moc.schema";
import { uuid } from "../shared/fields.schema";
import { changeMoc } from "./moc.server";
import { scopeLabel } from "./moc-names";
import type { MocDocument } from "./moc-document";
import type { PublicUser } from "../people/user.server";
import { resolveScope } from "../fleet/vessel.server";
import { isScope } from "../fleet/vessel.schema";

/** POST /api/titleAndVessel: the MOC and what it lacks (at least one). */
export const mocContextSchema = z
  .object({
    moc_id: uuid("MOC id"),
    title: z.object({ value: mocTitle }, { error: "Expected { value }" }).optional(),
    vessel: z.object({ value: vesselRef }, { error: "Expected { value }" }).optional(),
  })
  .refine((b) => b.title || b.vessel, { error: "Give the title, the vessel or both" });
export type MocContextInput = z.infer<typeof mocContextSchema>;

/** The record page's form (`{ value }` fields like Part A's): the select posts a vessel's id, "office" or "fleet". */
export const mocContextPageSchema = z.object({
  title: optionalField(mocTitle),
  vessel: optionalField(z.preprocess((v) => (typeof v === "string" && !isScope(v) ? { _id: v } : v), vesselRef)),
});

export async function completeMocContext(actor: PublicUser, input: MocContextInput): Promise<MocDocument> {
  return changeMoc(
    actor,
    input.moc_id,
    { may: canManageMoc, forbidden: "Only the originator or an admin can record the title and vessel of this MOC" },
    async (tx, moc) => {
      const [row] = await tx.execute<{ data: Record<string, { value: unknown } | undefined> }>(
        sql`select data from ${mocForms} where moc_id = ${moc.id} and kind = 'originator' for update`,
      );
      const data = row?.data ?? {};
      const already = [
        input.title && data.title?.value ? "title" : null,
        input.vessel && data.vessel?.value ? "vessel" : null,
      ].filter(Boolean);
      if (already.length) {
        throw new Conflict(`This MOC already records its ${already.join(" and ")}; change it through Part A`);
      }
      const added: Record<string, { value: unknown }> = {};
      if (input.title) added.title = { value: input.title.value };
      if (input.vessel) added.vessel = { value: await resolveScope(tx, input.vessel.value) };
      await tx.execute(sql`update ${mocForms} set data = data || ${JSON.stringify(added)}::jsonb, updated_at = now()
        where moc_id = ${moc.id} and kind = 'originator'`);
      const said = [
        added.title ? `title “${input.title!.value}”` : null,
        added.vessel ? `vessel ${scopeLabel(added.vessel.value)}` : null,
      ].filter(Boolean);
      return { action: `Recorded the ${said.join(" and ")}` };
    },
  );
}
