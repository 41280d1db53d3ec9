import { submitOriginatorSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("originator", submitOriginatorSchema, (body) => body.originator_form);

export const loader = route.loader;
export const action = route.action;
