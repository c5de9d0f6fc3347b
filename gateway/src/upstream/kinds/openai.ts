import { z } from "zod";
import { commonProviderFields, EnvironmentVariableName, HttpUrl, keyedEndpoint, OPENAI_WIRE_HEADERS, requiredVariable, type ProviderKind, EVERY_FAMILY } from "./common";

export const OpenAIProviderConfig = z.strictObject({
  kind: z.literal("openai"),
  /** Where the API is, up to and including its version: `https://api.openai.com/v1`, or any OpenAI-compatible server. */
  baseUrl: HttpUrl,
  /** Name of the environment variable holding the provider's API key, sent as a bearer token. */
  apiKeyEnv: EnvironmentVariableName,
  ...commonProviderFields,
});
export type OpenAIProviderConfig = z.infer<typeof OpenAIProviderConfig>;

/** OpenAI's API, or any server that speaks its wire: a bearer key, paths under the base URL, SSE streams. */
export const OPENAI_KIND: ProviderKind<OpenAIProviderConfig> = {
  config: OpenAIProviderConfig,
  families: () => EVERY_FAMILY,
  open(config, name, env) {
    const apiKey = requiredVariable(env, config.apiKeyEnv, name, "the provider's API key");
    return {
      origin: new URL(config.baseUrl).origin,
      wire: "openai",
      endpoint: keyedEndpoint(config.baseUrl, { authorization: `Bearer ${apiKey}` }, OPENAI_WIRE_HEADERS, apiKey),
    };
  },
};
