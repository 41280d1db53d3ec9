/**
 * C0 and C1 control characters and DEL, every one: a search refuses them (app/models/shared/text-rules.ts);
 * the search boxes show a refused search back without them (a NUL cannot be an attribute's value).
 * Its own module, without zod: the search box in the browser reads it.
 */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
