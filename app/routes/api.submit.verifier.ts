import { submitVerifierSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("verifier", submitVerifierSchema, (body) => body.verifier_form);

export const loader = route.loader;
export const action = route.action;
