import { GatewayError } from "../../../errors";
import type { ProviderCall } from "../../../upstream/send";
import type { ProviderExchange } from "../../media-wire";

/**
 * OpenAI's embeddings wire (`POST /v1/embeddings`) answered by Amazon Titan Text Embeddings on
 * Bedrock: one InvokeModel per input text (`{ inputText, dimensions }` →
 * `{ embedding, inputTextTokenCount }`), the vectors written back as OpenAI's answer, its
 * `usage.prompt_tokens` Bedrock's token counts (which the charge is taken from).
 */

/** The call the exchange makes for one text; the bedrock kind sends a call of this path to `/model/{modelId}/invoke` with its body as is. */
const TITAN_EMBEDDINGS_PATH = "/embeddings";

/** The request fields that have a Titan counterpart; any other is refused by name. */
const CARRIED = new Set(["model", "input", "dimensions", "encoding_format"]);

const TARGET = "Amazon Titan embeddings on Bedrock";

function refused(param: string, why: string): never {
  throw new GatewayError("validation_failed", `Invalid fields: ${param}: cannot be carried to ${TARGET}: ${why}.`, { param });
}

function textsOf(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === "string")) return input as string[];
  return refused("input", "it embeds text, a string or a list of strings, not tokens");
}

/** Float32 little-endian bytes in base64: OpenAI's `encoding_format: base64`, which the openai SDK asks for by default. */
function base64Of(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString("base64");
}

interface TitanAnswer {
  embedding?: unknown;
  inputTextTokenCount?: unknown;
}

export const titanEmbeddings: ProviderExchange = async (call: ProviderCall, send) => {
  const body = call.body as Record<string, unknown>;
  for (const field of Object.keys(body)) if (!CARRIED.has(field)) refused(field, "it has no such field");
  const texts = textsOf(body.input);
  const { dimensions, encoding_format: format } = body;
  if (format !== undefined && format !== "float" && format !== "base64") refused("encoding_format", 'expected "float" or "base64"');
  const answers = (await Promise.all(
    texts.map((inputText) => send({ path: TITAN_EMBEDDINGS_PATH, model: call.model, stream: false, body: { inputText, ...(dimensions !== undefined && { dimensions }) }, traceHeaders: call.traceHeaders })),
  )) as TitanAnswer[];
  let tokens = 0;
  const data = answers.map((answer, index) => {
    if (!Array.isArray(answer.embedding) || typeof answer.inputTextTokenCount !== "number") throw new Error("a Titan answer without its embedding or token count");
    tokens += answer.inputTextTokenCount;
    const vector = answer.embedding as number[];
    return { object: "embedding", index, embedding: format === "base64" ? base64Of(vector) : vector };
  });
  const answer = { object: "list", data, model: call.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  return { bytes: Buffer.from(JSON.stringify(answer)), contentType: "application/json" };
};
