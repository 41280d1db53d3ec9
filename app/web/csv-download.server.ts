/**
 * The HTTP side of the list exports (app/models/records-out/csv-export.server.ts makes the CSV): whether a
 * request asks for CSV, and the download response.
 */

/** A CSV download, named after the list and the day. */
export function csvResponse(stream: ReadableStream<Uint8Array>, name: string): Response {
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** A request asks for CSV: `format=csv`, or `Accept: text/csv`. */
export const wantsCsv = (request: Request) =>
  new URL(request.url).searchParams.get("format") === "csv" ||
  /\btext\/csv\b/i.test(request.headers.get("Accept") ?? "");
