/**
 * The legacy archive: paper-era MOC and PCR records, the same operations for each.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { archiveAnswer, deletedAnswer } from "~/web/openapi/answers.schema";
import { archiveFilterSchema, archiveSchemas } from "~/models/archive/archive.schema";
import { idQuery } from "~/models/moc/moc.schema";
import { okOf, type Operation, type Method, type Operations } from "./operation";

export const ARCHIVE_OPERATIONS: Operations = {
  ...Object.fromEntries(
    (["moc", "pcr"] as const).flatMap((kind) => {
      const base = kind === "moc" ? "/api/oldMoc" : "/api/oldPcr";
      const what = `legacy ${kind.toUpperCase()} record`;
      const one = okOf(archiveAnswer);
      const example = {
        serial_num: "12-2014",
        title: "Bilge pump replacement",
        ...(kind === "moc"
          ? { description: "Replaced the aft bilge pump", department: "Engineering" }
          : { procedure: "Ballast water procedure 3.1" }),
        originator_name: "Jan de Vries",
        date_raised: "2014-03-02",
        date_closed: "2014-05-20",
        status: "closed",
        attachments: ["https://files.example.com/moc/12-2014.pdf"],
        notes: "Scanned from the 2014 binder",
      };
      return [
        [
          base,
          {
            get: {
              summary: `Every ${what}.`,
              description:
                "The records the filters select (`q`, `status`, `department`, `year`), in the order `sort`/`dir` ask (latest raised first by default): " +
                "the whole list, a page with `limit`/`cursor` in the same order (a cursor of another list or order is 400), " +
                "or, with format=csv or Accept: text/csv, the same rows as CSV.",
              ok: okOf(z.array(archiveAnswer)),
              csv: archiveFilterSchema,
              paged: true,
            },
            post: {
              summary: `Adds a ${what} (admins and HSEQ).`,
              body: archiveSchemas[kind].create,
              ok: one,
              errors: [409],
              example,
            },
            put: {
              summary: `Changes the fields sent of a ${what}, named by \`_id\` (admins and HSEQ); the others are kept, as with PATCH. \`status\` is derived from \`date_closed\`: one that disagrees is 400.`,
              body: archiveSchemas[kind].replace,
              ok: one,
              example: { _id: "3fa85f64-5717-4562-b3fc-2c963f66afa6", ...example },
              errors: [404, 409],
            },
            delete: {
              summary: `Deletes a ${what} (admins and HSEQ).`,
              query: idQuery(`${kind.toUpperCase()} id`),
              ok: okOf(deletedAnswer),
              errors: [404],
            },
          } satisfies Partial<Record<Method, Operation>>,
        ],
        [
          `${base}/{id}`,
          {
            get: { summary: `One ${what}.`, ok: one, errors: [404] },
            patch: {
              summary: `Changes some fields of a ${what} (admins and HSEQ). \`status\` is derived from \`date_closed\`: one that disagrees is 400.`,
              body: archiveSchemas[kind].patch,
              ok: one,
              errors: [404, 409],
            },
          } satisfies Partial<Record<Method, Operation>>,
        ],
      ];
    }),
  ),
};
