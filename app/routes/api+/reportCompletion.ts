import { mocStepRoute } from "~/web/moc-step-route.server";

/** POST /api/reportCompletion: the implementer's completion report after the deviation/extension decisions (issue 38). */
const route = mocStepRoute("completion-report");

export const loader = route.loader;
export const action = route.action;
