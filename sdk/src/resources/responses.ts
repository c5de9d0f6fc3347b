import { PUBLIC_PATHS, ResponseObject, type ResponsesRequest } from "@gateway-keys/contract";
import type { GatewayClient } from "../client";
import type { APIPromise } from "../core/api-promise";
import type { ModelRequestOptions } from "../core/request-options";

/**
 * Model requests (`POST /v1/responses`), authenticated with a regular API key: the quickest proof
 * that a key works.
 * @example
 * const answer = await client.responses.create({ model: "echo-1", input: "ping" }, { apiKey: key.secret });
 * console.log(answer.output[0]?.content[0]?.text);
 */
export class Responses {
  readonly #client: GatewayClient;

  /** Built by {@link GatewayClient}; reach it as `client.responses`. */
  constructor(client: GatewayClient) {
    this.#client = client;
  }

  /**
   * Sends `input` to `model` with the call's `apiKey` (or the client's).
   * @throws SpendLimitError (402) when the key has spent its limit; PermissionError when the model is not allowed.
   * @example
   * const answer = await client.responses.create({ model: "echo-1", input: "hi" }, { apiKey });
   */
  create(body: ResponsesRequest, options?: ModelRequestOptions): APIPromise<ResponseObject> {
    return this.#client.request({ method: "POST", path: PUBLIC_PATHS.responses, body, auth: "apiKey", schema: ResponseObject, options });
  }
}
