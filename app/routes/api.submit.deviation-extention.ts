import { deviationExtensionSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("deviation-extension", deviationExtensionSchema, (body) => body);

export const loader = route.loader;
export const action = route.action;
