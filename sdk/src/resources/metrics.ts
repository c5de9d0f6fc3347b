import { Metrics, ROUTES } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import type { APIPromise } from "../core/api-promise";
import type { RequestOptions } from "../core/request-options";

/**
 * Counters of the owner's keys (by state) and model requests.
 * @example
 * const { keys, requests } = await client.metrics.get();
 */
export class AccountMetrics {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.metrics`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/account/metrics`.
   * @example
   * const metrics = await client.metrics.get();
   */
  get(options?: RequestOptions): APIPromise<Metrics> {
    return this.#client.request({ method: ROUTES.metrics.method, path: ROUTES.metrics.path, auth: "provisioning", schema: ROUTES.metrics.answer.schema, options });
  }
}
