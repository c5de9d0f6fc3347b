import type { ListPage } from "@gateway-keys/contract";
import { APIPromise } from "./api-promise";
import { InvalidArgumentError, ResponseValidationError } from "./errors";

/**
 * Page size and cursor of a list call. `limit` is 1 to 100 (default 20); `after` is the
 * `nextCursor` of an earlier page.
 * @example
 * const params: ListParams = { limit: 100, after: page.nextCursor ?? undefined };
 */
export interface ListParams {
  limit?: number;
  after?: string;
}

/** Fetches the page that starts after `cursor`. */
export type PageFetcher<Item> = (cursor: string) => PagePromise<Item>;

/**
 * One page of a list. Iterating it with `for await` yields its items and then those of every later
 * page, fetching each page only when the loop reaches it.
 *
 * @example
 * const page = await client.apiKeys.list({ limit: 50 });
 * console.log(page.data.length, page.hasNextPage());
 * for await (const key of page) console.log(key.keyId); // this page, then the rest
 */
export class Page<Item> implements AsyncIterable<Item> {
  /** Items of this page, in the gateway's order. */
  readonly data: Item[];
  /** Whether the gateway holds more items after this page. */
  readonly hasMore: boolean;
  /** Cursor of the next page (the `after` parameter), null on the last page. */
  readonly nextCursor: string | null;
  readonly #fetch: PageFetcher<Item>;
  readonly #cursor: string | undefined;
  readonly #request: string;

  /** Built by the SDK from a parsed list body; `cursor` is the `after` that fetched it. */
  constructor(body: ListPage<Item>, fetch: PageFetcher<Item>, request: string, cursor?: string) {
    this.data = body.data;
    this.hasMore = body.has_more;
    this.nextCursor = body.next_cursor;
    this.#fetch = fetch;
    this.#request = request;
    this.#cursor = cursor;
  }

  /** True when another page follows this one. */
  hasNextPage(): boolean {
    return this.hasMore && this.nextCursor !== null;
  }

  /**
   * Fetches the page after this one.
   * @throws InvalidArgumentError when this is the last page (check `hasNextPage()` first).
   */
  getNextPage(): PagePromise<Item> {
    if (!this.hasNextPage() || this.nextCursor === null) {
      throw new InvalidArgumentError("invalid_argument", "this is the last page: check hasNextPage() before getNextPage()");
    }
    if (this.nextCursor === this.#cursor) {
      // A gateway that hands back the cursor it was given would make `for await` spin forever.
      throw new ResponseValidationError(
        200,
        [{ path: "next_cursor", message: "repeats the cursor that fetched this page, so the list would never end" }],
        this.#request,
      );
    }
    return this.#fetch(this.nextCursor);
  }

  /**
   * This page and every later one, each fetched when the loop asks for it.
   * @example
   * for await (const page of (await client.apiKeys.list()).iterPages()) console.log(page.data.length);
   */
  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    let page: Page<Item> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * What a list call returns: await it for the first page, or `for await` it for every item across
 * all pages, fetched lazily.
 *
 * @example
 * const first = await client.apiKeys.list({ limit: 10 });
 * for await (const key of client.apiKeys.list()) console.log(key.name);
 */
export class PagePromise<Item> extends APIPromise<Page<Item>> implements AsyncIterable<Item> {
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const first = await this;
    yield* first;
  }
}
