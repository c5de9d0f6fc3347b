import { ResponseObject, type ResponsesRequest, ROUTES } from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import { APIPromise } from "../core/api-promise";
import { InvalidArgumentError } from "../core/errors";
import type { ModelRequestOptions } from "../core/request-options";

/**
 * A whole (not streamed) Responses request: `model`, and `input` as a string or an array of
 * messages; optionally `instructions` and `max_output_tokens`. Other Responses fields may be sent
 * and are ignored by the gateway (docs/api/text.md#post-v1responses--responses).
 */
export type CreateResponseRequest = Omit<ResponsesRequest, "stream"> & { stream?: false | null };

/**
 * Model requests (`POST /v1/responses`), authenticated with a regular API key: the quickest proof
 * that a key works. For streaming, or the other text wires (Chat Completions, Messages), point the
 * official `openai` or `@anthropic-ai/sdk` client at the gateway (README.md).
 * @example
 * const answer = await client.responses.create({ model: "echo-1", input: "ping" }, { apiKey: key.secret });
 * console.log(outputText(answer), answer.usage?.output_tokens);
 */
export class Responses {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.responses`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * Runs `model` on `input` with the call's `apiKey` (or the client's) and returns the whole
   * answer: the text at `output[0].content[0].text`, token counts in `usage`, and `status`
   * `"incomplete"` when generation stopped at `max_output_tokens`. The key is charged the tokens
   * at the model's price (`client.models.list()`); before the model runs, the gateway reserves the
   * input tokens plus `max_output_tokens` (the model's maximum when left out), so a small bound
   * lets a request through under a tight spend limit.
   * @throws SpendLimitError (402) when the reservation does not fit under the key's limit;
   *   PermissionError when the model is not allowed; ValidationError (400) for a bad field, such as
   *   `max_output_tokens` above the model's maximum; InvalidArgumentError, before sending, for
   *   `stream: true` (this method reads whole answers only).
   * @example
   * const answer = await client.responses.create(
   *   { model: "echo-1", instructions: "Answer briefly.", input: [{ role: "user", content: "hi" }], max_output_tokens: 16 },
   *   { apiKey },
   * );
   */
  create(body: CreateResponseRequest, options?: ModelRequestOptions): APIPromise<ResponseObject> {
    if ((body as { stream?: unknown } | null)?.stream === true) {
      const error = new InvalidArgumentError(
        "invalid_argument",
        "responses.create reads whole answers: leave out stream, or stream with the official openai client (responses.stream) pointed at the gateway",
      );
      return new APIPromise(Promise.reject(error));
    }
    return this.#client.request({ method: ROUTES.responses.method, path: ROUTES.responses.path, body, auth: "apiKey", schema: ROUTES.responses.answer.schema, options });
  }
}

/**
 * The generated text of a response: every `output_text` part of its message items, joined (what
 * the official client calls `output_text`). For a plain answer it is `output[0].content[0].text`;
 * an answer that only called tools has none (`""`).
 */
export function outputText(answer: ResponseObject): string {
  let text = "";
  for (const item of answer.output) if (item.type === "message") for (const part of item.content) text += part.text;
  return text;
}
