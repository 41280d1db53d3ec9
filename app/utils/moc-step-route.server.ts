import type { z } from "zod";
import type { MocStep } from "~/models/authz.server";
import { runStep, type StepInput } from "~/models/moc-workflow.server";
import { requireApiUser } from "./auth.server";
import { apiRoute, ok, readJson } from "./http.server";

/**
 * A pipeline endpoint (`POST /api/submit/<step>`): read and validate the body, run the step,
 * answer with the populated MOC. The UI's step forms call the same `runStep`.
 */
export function mocStepRoute<S extends MocStep, B extends z.ZodType<{ moc_id: string }>>(
  step: S,
  schema: B,
  pick: (body: z.output<B>) => StepInput<S>,
) {
  return apiRoute({
    async POST({ request }) {
      const actor = await requireApiUser(request);
      const body = await readJson(request, schema);
      return ok(await runStep(step, actor, body.moc_id, pick(body)));
    },
  });
}
