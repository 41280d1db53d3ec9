import { mocStepRoute } from "~/web/moc-step-route.server";

const route = mocStepRoute("temporary-extension-decision");

export const loader = route.loader;
export const action = route.action;
