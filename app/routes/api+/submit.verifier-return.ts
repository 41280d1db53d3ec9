import { mocStepRoute } from "~/web/moc-step-route.server";

const route = mocStepRoute("verifier-return");

export const loader = route.loader;
export const action = route.action;
