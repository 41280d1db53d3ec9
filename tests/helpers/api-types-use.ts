/**
 * The generated client types (tests/helpers/api-types.ts, `npm run api:types`) as the API tests use
 * them, and the type check that ties the models' answers to the document: a key a model starts to
 * answer, drops or retypes without the document following fails `npm run typecheck`.
 */
import type { ArchiveDocument } from "~/models/archive/archive.server";
import type { MocDocument } from "~/models/moc/moc-document";
import type { PcrDocument } from "~/models/pcr/pcr.server";
import type { ReviewDocument } from "~/models/review/review.server";
import type { PublicUser } from "~/models/people/user.server";
import type { components, paths } from "./api-types";

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;

/** The JSON body `METHOD path` answers with `status`, as the document describes it. */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? JsonOf<R[S]>
    : never
  : never;

export type Schema<N extends keyof components["schemas"]> = components["schemas"][N];

// ---------------------------------------------------------------------------------------------
// The models' answers against the document

/** `Model` can be sent where the document promises `Documented`, with no key the document lacks. */
type Follows<Model, Documented> = [Model] extends [Documented]
  ? [Exclude<keyof Model, keyof Documented>] extends [never]
    ? [Exclude<keyof Documented, keyof Model>] extends [never]
      ? true
      : { missingFromModel: Exclude<keyof Documented, keyof Model> }
    : { undocumented: Exclude<keyof Model, keyof Documented> }
  : { notAssignable: [Model, Documented] };

type Item<T> = T extends (infer I)[] ? I : never;

export const MODELS_FOLLOW_THE_DOCUMENT: {
  user: Follows<PublicUser, Schema<"User">>;
  moc: Follows<MocDocument, Schema<"Moc">>;
  pcr: Follows<PcrDocument, Schema<"Pcr">>;
  archive: Follows<ArchiveDocument, Item<Answer<"/api/oldMoc", "get">["data"]>>;
  review: Follows<ReviewDocument, Answer<"/api/year-end-review", "post">["data"]>;
} = { user: true, moc: true, pcr: true, archive: true, review: true };
