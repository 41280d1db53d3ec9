import { mocStepRoute } from "~/web/moc-step-route.server";

const route = mocStepRoute("temporary-extension");

export const loader = route.loader;
export const action = route.action;
