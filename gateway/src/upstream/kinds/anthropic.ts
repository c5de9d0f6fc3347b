import { z } from "zod";
import { DEFAULT_ANTHROPIC_VERSION } from "../upstream-provider";
import { commonProviderFields, EnvironmentVariableName, HttpUrl, keyedEndpoint, requiredVariable, type ProviderKind, CHAT_ONLY } from "./common";

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
      endpoint: keyedEndpoint(config.baseUrl, { "x-api-key": apiKey, "anthropic-version": DEFAULT_ANTHROPIC_VERSION }, ANTHROPIC_HEADERS, apiKey),
    };
  },
};
