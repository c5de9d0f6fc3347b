import { Model, PUBLIC_PATHS } from "@gateway-keys/contract";
import type { GatewayClient } from "../client";
import type { PagePromise } from "../core/pagination";
import type { ModelRequestOptions } from "../core/request-options";

/**
 * The gateway's models with their prices. Public: sent with the client's regular key when it has
 * one, with no credentials otherwise.
 * @example
 * for await (const model of client.models.list()) console.log(model.id, model.pricing.perRequestUnits);
 */
export class Models {
  readonly #client: GatewayClient;

  /** Built by {@link GatewayClient}; reach it as `client.models`. */
  constructor(client: GatewayClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/models`: await for a page, `for await` for every model.
   * @example
   * const { data } = await client.models.list();
   */
  list(options?: ModelRequestOptions): PagePromise<Model> {
    return this.#client.requestPage({ path: PUBLIC_PATHS.models, auth: "optionalApiKey", item: Model, options });
  }
}
