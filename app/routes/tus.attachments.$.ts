// Resumable attachment uploads (the tus protocol): app/web/resumable-upload.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { handleResumableUpload } from "~/web/resumable-upload.server";

export const loader = ({ request }: LoaderFunctionArgs) => handleResumableUpload(request);
export const action = ({ request }: ActionFunctionArgs) => handleResumableUpload(request);
