import { UsageSummary, ROUTES, type TimelineBucket, type UsageTimeline } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import type { APIPromise } from "../core/api-promise";
import type { RequestOptions } from "../core/request-options";

/**
 * What the owner's keys spent, in total and per key and model.
 * @example
 * const { spentUnits, byKey } = await client.usage.summary();
 */
export class Usage {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.usage`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/account/usage/summary`.
   * @example
   * const summary = await client.usage.summary();
   */
  summary(options?: RequestOptions): APIPromise<UsageSummary> {
    return this.#client.request({ method: ROUTES.usageSummary.method, path: ROUTES.usageSummary.path, auth: "provisioning", schema: ROUTES.usageSummary.answer.schema, options });
  }

  /**
   * `GET /v1/account/usage/timeline`: requests and cost per hour or day, by model and status, for
   * the owner or one key, from the request logs.
   * @example
   * const { data } = await client.usage.timeline({ bucket: "day", keyId: "key_123" });
   */
  timeline(query: { bucket?: TimelineBucket; keyId?: string; since?: string; until?: string } = {}, options?: RequestOptions): APIPromise<UsageTimeline> {
    return this.#client.request({
      method: ROUTES.usageTimeline.method,
      path: ROUTES.usageTimeline.path,
      query: { ...query },
      auth: "provisioning",
      schema: ROUTES.usageTimeline.answer.schema,
      options,
    });
  }
}
