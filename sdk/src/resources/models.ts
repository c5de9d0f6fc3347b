import { Model, ROUTES } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import type { PagePromise } from "../core/pagination";
import type { ModelRequestOptions } from "../core/request-options";

/**
 * The gateway's models, each with its `family` (which endpoints serve it), its price in credits
 * per million input and output tokens, and the most tokens one request may generate. Public: sent
 * with the client's regular key when it has one (then only the models that key may call are
 * listed), with no credentials otherwise.
 * @example
 * for await (const model of client.models.list()) {
 *   console.log(model.id, model.family, model.pricing); // per million tokens, characters, per minute or per image, by family
 * }
 */
export class Models {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.models`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * `GET /v1/models`: await for a page, `for await` for every model.
   * @example
   * const { data } = await client.models.list();
   * const chat = data.filter((model) => model.family === "chat").map((model) => model.id);
   */
  list(options?: ModelRequestOptions): PagePromise<Model> {
    return this.#client.requestPage({ path: ROUTES.models.path, auth: "optionalApiKey", item: Model, options });
  }
}
