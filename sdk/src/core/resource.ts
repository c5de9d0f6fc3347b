import type { APIPromise } from "./api-promise";
import type { PagePromise } from "./pagination";
import type { Logger, PageSpec, RequestSpec } from "./request-options";

/**
 * What a resource (`client.apiKeys`, `client.usage`, …) needs of the client: send one request, list
 * a paginated route, write a log line. `GatewayClient` implements it; resources depend on this and
 * not on the client, so `client.ts` builds the resources without an import cycle.
 */
export interface RequestClient {
  request<T>(spec: RequestSpec<T>): APIPromise<T>;
  requestPage<Item>(spec: PageSpec<Item>): PagePromise<Item>;
  log(level: keyof Logger, message: string, fields?: Record<string, unknown>): void;
}
