import type { ListPage } from "@gateway-keys/contract";
import { GatewayError } from "../errors";

/** Which list a cursor belongs to, so one list's cursor is refused by another. */
export type CursorKind = "keys" | "logs" | "audit" | "webhooks" | "deliveries" | "teams";

const TAGS: Record<CursorKind, string> = { keys: "k1", logs: "l1", audit: "a1", webhooks: "w1", deliveries: "d1", teams: "t1" };

/**
 * Cursors are opaque to clients: base64url of a tag and the sequence number of the last item
 * served. Sequence numbers only grow, so a page boundary never moves when rows are inserted.
 */
export function encodeCursor(kind: CursorKind, seq: number): string {
  return Buffer.from(`${TAGS[kind]}:${seq}`, "utf8").toString("base64url");
}

/** The sequence number in a cursor. @throws 400 `validation_failed` (param `after`) for anything else. */
export function decodeCursor(kind: CursorKind, cursor: string): number {
  const match = /^([a-z0-9]+):(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match || match[1] !== TAGS[kind]) {
    throw new GatewayError("validation_failed", "Invalid query parameters: after: expected the next_cursor of a previous page of this list.", {
      param: "after",
    });
  }
  return Number(match[2]);
}

/**
 * Builds a page from `limit + 1` fetched rows: the extra row only tells whether there is more.
 */
export function pageOf<Row extends { seq: number }, Item>(
  kind: CursorKind,
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
): ListPage<Item> {
  const hasMore = rows.length > limit;
  const served = hasMore ? rows.slice(0, limit) : rows;
  const last = served[served.length - 1];
  return {
    object: "list",
    data: served.map(toItem),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(kind, last.seq) : null,
  };
}
