import { submitImplementationSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("implementation", submitImplementationSchema, (body) => body.implementation);

export const loader = route.loader;
export const action = route.action;
