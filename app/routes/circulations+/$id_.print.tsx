import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { RecordPrint } from "~/components/record-print";
import { circulationRecordFor } from "~/web/circulation-out.server";
import styles from "~/styles/print.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.record.title} (print) · Change Management` : "Circulation · Change Management" },
];

/**
 * One circulation's tracking laid out for A4 (the record, note, due, totals, by vessel and rank,
 * every recipient, the questions asked), for whoever may see the tracking; works without JavaScript.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return { record: (await circulationRecordFor(request, params.id)).record };
}

export default function CirculationPrint() {
  const { record } = useLoaderData<typeof loader>();
  return <RecordPrint record={record} back={`/circulations/${record.id}`} />;
}
