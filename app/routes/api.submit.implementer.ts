import { submitImplementerSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("implementer", submitImplementerSchema, (body) => body.implementer_form);

export const loader = route.loader;
export const action = route.action;
