/**
 * A partial-update schema: every key optional, with no `.default()` left. zod's `.partial()` keeps
 * the defaults, so a key the client left out would come back as its default and overwrite the
 * stored value (a PUT that names one PCR field reset the flags; a password reset demoted an
 * admin). With this, an omitted key stays absent and the update changes only what it names.
 * Plain module: the pages validate in the browser with the same schemas.
 */
import { z } from "zod";

type WithoutDefault<S> = S extends z.ZodDefault<infer Inner> ? WithoutDefault<Inner> : S;
type PartialShape<Shape extends z.ZodRawShape> = { [K in keyof Shape]: z.ZodOptional<WithoutDefault<Shape[K]>> };

const withoutDefault = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodDefault ? withoutDefault(schema.unwrap() as z.ZodType) : schema;

export function partialUpdate<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
): z.ZodObject<PartialShape<Shape>> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [key, withoutDefault(field as z.ZodType).optional()]),
  );
  // The shape is built key by key at run time, which zod's types cannot follow; PartialShape says
  // what it is (each key the same schema, unwrapped of its default, made optional).
  return z.object(shape) as unknown as z.ZodObject<PartialShape<Shape>>;
}
