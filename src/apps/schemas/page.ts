/**
 * The paged list every apps tool returns a collection in (search hits,
 * references, artifact changes, extracted files, reconstruction claims).
 *
 * @module
 */

import { z } from "zod";

const int = z.number().int();

/** A page of `item`s: the slice, where it starts, its size bound, the total and where the next begins. */
export function listPageSchema<T extends z.ZodType>(item: T): z.ZodObject<{
  items: z.ZodArray<T>;
  offset: z.ZodNumber;
  limit: z.ZodNumber;
  total: z.ZodNumber;
  has_more: z.ZodBoolean;
  next_offset: z.ZodNullable<z.ZodNumber>;
}> {
  return z.object({
    items: z.array(item),
    offset: int,
    limit: int,
    total: int,
    has_more: z.boolean(),
    next_offset: int.nullable(),
  });
}
