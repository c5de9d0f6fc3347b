import { z } from "zod";
import { serverSentEvents } from "../sse-events";
import { DEFAULT_ANTHROPIC_VERSION } from "../upstream-provider";
import { commonProviderFields, encodedBody, EnvironmentVariableName, HttpUrl, passedHeaders, pathUnder, requiredVariable, type ProviderKind, CHAT_ONLY } from "./common";

/** Client headers the Messages wire defines, passed on (the client's version wins over the default). */
const ANTHROPIC_HEADERS = ["anthropic-version", "anthropic-beta"] as const;

export const AnthropicProviderConfig = z.strictObject({
  kind: z.literal("anthropic"),
  /** Where the API is, without its version: `https://api.anthropic.com`. */
  baseUrl: HttpUrl,
  /** Name of the environment variable holding the provider's API key, sent as `x-api-key`. */
  apiKeyEnv: EnvironmentVariableName,
  ...commonProviderFields,
});
export type AnthropicProviderConfig = z.infer<typeof AnthropicProviderConfig>;

/** Anthropic's API, or any server that speaks the Messages wire. */
export const ANTHROPIC_KIND: ProviderKind<AnthropicProviderConfig> = {
  config: AnthropicProviderConfig,
  // The Messages API has no media endpoints.
  families: () => CHAT_ONLY,
  open(config, name, env) {
    const apiKey = requiredVariable(env, config.apiKeyEnv, name, "the provider's API key");
    return {
      origin: new URL(config.baseUrl).origin,
      wire: "anthropic",
      endpoint: {
        prepare(call) {
          const { body, contentType } = encodedBody(call.body);
          const headers = passedHeaders(ANTHROPIC_HEADERS, call.clientHeaders, { "x-api-key": apiKey, "anthropic-version": DEFAULT_ANTHROPIC_VERSION });
          if (contentType) headers["content-type"] = contentType;
          return { path: pathUnder(config.baseUrl, call.path), headers, body };
        },
        events: (body) => serverSentEvents(body),
        secrets: () => [apiKey],
      },
    };
  },
};
