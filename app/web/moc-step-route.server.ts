import { runStep } from "~/models/moc/moc-workflow.server";
import { STEPS, stepBodySchema, type MocStep } from "~/models/moc/moc-steps.server";
import { requireApiUser } from "./auth.server";
import { apiRoute, issuesUnder, okJsonText, readJson } from "~/utils/http.server";

/**
 * A pipeline endpoint (`POST /api/submit/<step>`), all of it from the step's definition: read and
 * validate the body (the step's form under its body key), run the step, answer with the populated
 * MOC (its stored document's text); the model's issues come back under the body key. The UI's step forms call the same `runStep`.
 */
export function mocStepRoute(step: MocStep) {
  const schema = stepBodySchema(step);
  return apiRoute({
    async POST({ request }) {
      const actor = await requireApiUser(request);
      const body = await readJson(request, schema);
      return okJsonText(await issuesUnder(STEPS[step].bodyKey, () => runStep(step, actor, body.moc_id, body.form)));
    },
  });
}
