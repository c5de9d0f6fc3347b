import { z } from "zod";
import { JsonSchemaObject, MaxOutputTokens, ModelName, SamplingNumber, StreamFlag, stopSequences } from "./text";

/** `POST /v1/chat/completions`, the OpenAI Chat Completions wire. */

export const CHAT_ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;

/**
 * The envelope: what the gateway reads of every chat request, whoever serves it. Everything else
 * — sampling, tools, images, `response_format`, provider fields — is kept as sent (see text.ts).
 */
export const ChatCompletionRequest = z
  .looseObject({
    model: ModelName,
    messages: z
      .array(z.looseObject({ role: z.enum(CHAT_ROLES, { error: `expected one of ${CHAT_ROLES.join(", ")}` }) }), {
        error: "expected an array of messages",
      })
      .min(1, { error: "must hold at least one message" }),
    max_tokens: MaxOutputTokens.nullish(),
    max_completion_tokens: MaxOutputTokens.nullish(),
    stream: StreamFlag.nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean({ error: "expected true or false" }).optional() }).nullish(),
  })
  .superRefine((request, context) => {
    // Both bound the same thing; two different bounds would leave one silently unchecked.
    const { max_tokens: legacy, max_completion_tokens: current } = request;
    if (legacy != null && current != null && legacy !== current) {
      context.addIssue({ code: "custom", path: ["max_tokens"], message: "differs from max_completion_tokens; send one of the two (max_completion_tokens is the current name)" });
    }
  });
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

// --- The translatable form: every field a translation or a built-in model understands ---------

export const ChatTextPart = z.strictObject({ type: z.literal("text"), text: z.string({ error: "expected a string" }) });
export const ChatImagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({
    url: z.string({ error: "expected an https: or data: URL" }),
    detail: z.enum(["auto", "low", "high"], { error: 'expected "auto", "low" or "high"' }).optional(),
  }),
});
export const ChatContentPart = z.discriminatedUnion("type", [ChatTextPart, ChatImagePart], {
  error: 'expected a "text" or "image_url" part (other parts cannot be translated)',
});
export type ChatContentPart = z.infer<typeof ChatContentPart>;

const TextContent = z.union([z.string(), z.array(ChatTextPart)], { error: "expected a string or an array of text parts" });

export const ChatToolCall = z.strictObject({
  id: z.string({ error: "expected a string" }),
  type: z.literal("function", { error: 'expected "function"' }),
  function: z.strictObject({ name: z.string({ error: "expected a string" }), arguments: z.string({ error: "expected a JSON string" }) }),
});
export type ChatToolCall = z.infer<typeof ChatToolCall>;

export const ChatMessageParam = z.discriminatedUnion(
  "role",
  [
    z.strictObject({ role: z.literal("system"), content: TextContent }),
    z.strictObject({ role: z.literal("developer"), content: TextContent }),
    z.strictObject({
      role: z.literal("user"),
      content: z.union([z.string(), z.array(ChatContentPart)], { error: "expected a string or an array of parts" }),
    }),
    z.strictObject({
      role: z.literal("assistant"),
      content: TextContent.nullish(),
      tool_calls: z.array(ChatToolCall).optional(),
      refusal: z.string().nullish(),
    }),
    z.strictObject({ role: z.literal("tool"), tool_call_id: z.string({ error: "expected a string" }), content: TextContent }),
  ],
  { error: 'expected role "system", "developer", "user", "assistant" or "tool" ("function" cannot be translated)' },
);
export type ChatMessageParam = z.infer<typeof ChatMessageParam>;

export const ChatTool = z.strictObject({
  type: z.literal("function", { error: 'expected "function" (other tool types cannot be translated)' }),
  function: z.strictObject({
    name: z.string({ error: "expected a string" }),
    description: z.string().optional(),
    parameters: JsonSchemaObject.optional(),
    strict: z.boolean().nullish(),
  }),
});
export type ChatTool = z.infer<typeof ChatTool>;

export const ChatToolChoice = z.union(
  [
    z.enum(["none", "auto", "required"]),
    z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: z.string() }) }),
  ],
  { error: 'expected "none", "auto", "required" or { type: "function", function: { name } }' },
);
export type ChatToolChoice = z.infer<typeof ChatToolChoice>;

export const ChatResponseFormat = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("text") }),
    z.strictObject({ type: z.literal("json_object") }),
    z.strictObject({
      type: z.literal("json_schema"),
      json_schema: z.strictObject({
        name: z.string(),
        description: z.string().optional(),
        schema: JsonSchemaObject.optional(),
        strict: z.boolean().nullish(),
      }),
    }),
  ],
  { error: 'expected type "text", "json_object" or "json_schema"' },
);
export type ChatResponseFormat = z.infer<typeof ChatResponseFormat>;

export const ChatCompletionTranslatable = z.strictObject({
  model: ModelName,
  messages: z.array(ChatMessageParam).min(1, { error: "must hold at least one message" }),
  max_tokens: MaxOutputTokens.nullish(),
  max_completion_tokens: MaxOutputTokens.nullish(),
  stop: z.union([z.string(), stopSequences(4)]).nullish(),
  n: z.literal(1, { error: "only 1 is supported" }).nullish(),
  stream: StreamFlag.nullish(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: SamplingNumber.nullish(),
  top_p: SamplingNumber.nullish(),
  seed: z.number().int().nullish(),
  presence_penalty: SamplingNumber.nullish(),
  frequency_penalty: SamplingNumber.nullish(),
  tools: z.array(ChatTool).optional(),
  tool_choice: ChatToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: ChatResponseFormat.optional(),
  user: z.string().optional(),
});
export type ChatCompletionTranslatable = z.infer<typeof ChatCompletionTranslatable>;

// --- Answers the gateway builds (built-in models, translations) --------------------------------

/** Why generation stopped, on the Chat Completions wire. */
export const ChatFinishReason = z.enum(["stop", "length", "content_filter", "tool_calls"]);
export type ChatFinishReason = z.infer<typeof ChatFinishReason>;

export const ChatUsage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }).optional(),
});
export type ChatUsage = z.infer<typeof ChatUsage>;

/** The answer of a non-streamed chat completion. */
export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal("assistant"),
        content: z.string().nullable(),
        refusal: z.string().nullable(),
        tool_calls: z.array(ChatToolCall).optional(),
      }),
      finish_reason: ChatFinishReason,
      logprobs: z.null(),
    }),
  ),
  usage: ChatUsage,
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** A streamed piece of a tool call: the first names it (`id`, `function.name`), the rest carry argument text. */
export const ChatToolCallDelta = z.object({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }),
});

/** One server-sent event of a streamed chat completion (`data: <chunk>`; the stream ends with `data: [DONE]`). */
export const ChatCompletionChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional(), tool_calls: z.array(ChatToolCallDelta).optional() }),
      finish_reason: ChatFinishReason.nullable(),
      logprobs: z.null(),
    }),
  ),
  /** Present on every chunk when the client asked for usage: `null`, then the totals on a last chunk with no choices. */
  usage: ChatUsage.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;
