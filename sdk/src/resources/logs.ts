import { LogEntry, ROUTES } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import type { ListParams, PagePromise } from "../core/pagination";
import type { RequestOptions } from "../core/request-options";

/**
 * Query of `logs.list`: a page size and cursor, optionally narrowed to one key.
 * @example
 * const query: LogsListQuery = { keyId: "key_123", limit: 50 };
 */
export interface LogsListQuery extends ListParams {
  keyId?: string;
}

/**
 * Request logs of the owner's keys. Request and response content appear only when the key's
 * logging policy stores them.
 * @example
 * for await (const entry of client.logs.list({ keyId })) console.log(entry.status, entry.costUnits);
 */
export class Logs {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.logs`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/account/logs`: await for a page, `for await` for every entry.
   * @example
   * const page = await client.logs.list({ limit: 10 });
   */
  list(query: LogsListQuery = {}, options?: RequestOptions): PagePromise<LogEntry> {
    return this.#client.requestPage({ path: ROUTES.logs.path, query: { ...query }, auth: "provisioning", item: LogEntry, options });
  }
}
