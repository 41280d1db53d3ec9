import { submitHseqSchema } from "~/models/moc.schema";
import { mocStepRoute } from "~/utils/moc-step-route.server";

const route = mocStepRoute("hseq", submitHseqSchema, (body) => body.hseq_form);

export const loader = route.loader;
export const action = route.action;
