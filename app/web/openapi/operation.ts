/**
 * What one /api operation is in the OpenAPI description (app/web/openapi.server.ts), and the
 * pieces the areas' operation lists share.
 */
import type { z } from "zod";
import { envelope, mocAnswer, pcrAnswer, publicUserAnswer } from "~/web/openapi/answers.schema";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** The error statuses the document describes (each once, in ERRORS). */
export type ErrorStatus = 304 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 431 | 502 | 503 | 504;

/** One operation: what it does, its input schemas, its success answer and its other statuses. */
export type Operation = {
  summary: string;
  description?: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** No credentials needed. */
  public?: true;
  /** The success answer's JSON body (`{ status, data }` unless docs/api-contract.md says otherwise). */
  ok: z.ZodType;
  /** The success status when it is not 200. */
  okStatus?: 201;
  /** A second success status with the same body: the write was made before and nothing changed (POST /api/acknowledge). */
  alsoOk?: 200;
  /** Also answers the list as CSV, with these filters (format=csv or Accept: text/csv). */
  csv?: z.ZodObject;
  /** Answers the image's bytes instead of JSON. */
  image?: true;
  /** Takes `limit` and `cursor` (keyset paging) and answers `Link: <...>; rel="next"`. */
  paged?: true;
  /** Error statuses beyond the ones every operation of its kind has (400, 401, 403, 413). */
  errors?: ErrorStatus[];
  /** An example body when the one made from the schema would not be a useful request. */
  example?: unknown;
};

/** Statuses every signed-in operation can answer. */
export const SIGNED_IN_ERRORS: ErrorStatus[] = [401, 403];
/** Statuses every operation with a JSON body can answer. */
export const WRITE_ERRORS: ErrorStatus[] = [413];

export const MOC = envelope(mocAnswer);
export const PCR = envelope(pcrAnswer);
export const ONE_USER = envelope(publicUserAnswer);
/** The success body of the endpoints whose answer docs/api-contract.md leaves open: `{ status: 200, data }`. */
export const okOf = envelope;

/** Operations by path (OpenAPI path syntax, `{id}` for a path parameter) and method. */
export type Operations = Record<string, Partial<Record<Method, Operation>>>;
