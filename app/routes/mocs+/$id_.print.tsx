import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { RecordPrint } from "~/components/record-print";
import { mocRecordFor } from "~/web/record-out.server";
import styles from "~/styles/print.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.record.title} (print) · Change Management` : "MOC · Change Management" },
];

/** The whole MOC laid out for A4, for whoever may see the MOC (works without JavaScript). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return { record: await mocRecordFor(request, params.id) };
}

export default function MocPrint() {
  const { record } = useLoaderData<typeof loader>();
  return <RecordPrint record={record} back={`/mocs/${record.id}`} />;
}
