import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { z } from "zod";
import { redactSecrets } from "../../provider-errors";
import { commonProviderFields, HttpUrl, jsonBody, pathUnder, type ForwardedFamily, type ProviderKind } from "../common";
import { BEDROCK_APIS } from "./apis";
import { bedrockCredentials } from "./credentials";
import { bedrockStreamEvents } from "./event-stream";

export const BedrockProviderConfig = z.strictObject({
  kind: z.literal("bedrock"),
  /** The AWS region whose Bedrock runtime is called, and that requests are signed for: `us-east-1`. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { error: "expected an AWS region such as us-east-1" }),
  /**
   * Which runtime API the provider's models are called through: `converse` (Converse /
   * ConverseStream, any Bedrock chat model; default) or `invoke-anthropic` (Anthropic's models
   * through InvokeModel / InvokeModelWithResponseStream, on the Messages wire).
   */
  api: z.enum(["converse", "invoke-anthropic"], { error: 'expected api "converse" or "invoke-anthropic"' }).default("converse"),
  /** Where the runtime is, when not `https://bedrock-runtime.{region}.amazonaws.com` (a VPC endpoint, a test). */
  endpoint: HttpUrl.optional(),
  /** The profile of the shared AWS files to take credentials from; without it, `AWS_PROFILE`, then the AWS environment variables, then `default`. */
  profile: z.string().min(1).max(128).optional(),
  ...commonProviderFields,
});
export type BedrockProviderConfig = z.infer<typeof BedrockProviderConfig>;

const BEDROCK_FAMILIES: ReadonlySet<ForwardedFamily> = new Set(["chat", "embeddings"]);

/**
 * The embeddings operation, answered by the Titan exchange (inference/wires/embeddings/titan.ts): each
 * of its calls is one InvokeModel, its body Titan's already.
 */
const EMBEDDINGS_PATH = "/embeddings";

/** The service name Bedrock's runtime is signed for. */
const SIGNING_SERVICE = "bedrock";

/**
 * Amazon Bedrock's runtime: every request signed with AWS Signature Version 4 by the AWS SDK's
 * own signer, streamed answers in the AWS event-stream framing.
 */
export const BEDROCK_KIND: ProviderKind<BedrockProviderConfig> = {
  config: BedrockProviderConfig,
  // Embeddings through InvokeModel with Titan Text Embeddings' body, whichever `api` chat uses.
  families: () => BEDROCK_FAMILIES,
  open(config, name, env) {
    const base = config.endpoint ?? `https://bedrock-runtime.${config.region}.amazonaws.com`;
    const url = new URL(base);
    const credentials = bedrockCredentials(env, name, config.profile);
    const signer = new SignatureV4({ service: SIGNING_SERVICE, region: config.region, credentials: () => credentials.current(), sha256: Sha256 });
    const api = BEDROCK_APIS[config.api];
    const redact = (text: string) => redactSecrets(text, credentials.secrets());
    return {
      origin: url.origin,
      wire: api.wire,
      endpoint: {
        async prepare(call) {
          // An embeddings call is InvokeModel whatever the provider's `api`: its body is Titan's already.
          const { operation, body } = call.path === EMBEDDINGS_PATH ? { operation: "invoke", body: jsonBody(call, "Bedrock") } : api.request(call);
          // A model id such as `anthropic.claude-sonnet-4-5-20250929-v1:0` is one path segment, encoded.
          const path = pathUnder(base, `/model/${encodeURIComponent(call.model)}/${operation}`);
          const json = JSON.stringify(body);
          const headers = { host: url.host, "content-type": "application/json", accept: call.stream ? "application/vnd.amazon.eventstream" : "application/json" };
          const signed = await signer.sign({ method: "POST", protocol: url.protocol, hostname: url.hostname, ...(url.port && { port: Number(url.port) }), path, query: {}, headers, body: json });
          return { path, headers: signed.headers, body: json };
        },
        events: (body) => api.events(bedrockStreamEvents(body, name, redact)),
        secrets: () => credentials.secrets(),
        exchanges: { [EMBEDDINGS_PATH]: "titan-embeddings" },
      },
    };
  },
};
