import { submitApproverSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("approver", submitApproverSchema, (body) => body.approver_form);

export const loader = route.loader;
export const action = route.action;
