import { z } from "zod";

/** Page-size bounds of every list endpoint. */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** Query of a list endpoint: `?limit=1..100&after=<opaque cursor>`. */
export const ListQuery = z.strictObject({
  limit: z.coerce
    .number({ error: `expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}` })
    .int({ error: `expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}` })
    .min(PAGE_LIMIT.min, { error: `expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}` })
    .max(PAGE_LIMIT.max, { error: `expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}` })
    .default(PAGE_LIMIT.default),
  after: z.string().min(1, { error: "expected the next_cursor of a previous page" }).max(200).optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

/** One page of a list: `{ object: "list", data, has_more, next_cursor }`. */
export function ListPage<Item extends z.ZodType>(item: Item) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    has_more: z.boolean(),
    /** Pass as `after` to get the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  });
}
export interface ListPage<Item> {
  object: "list";
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}
