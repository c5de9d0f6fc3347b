import { z } from "zod";
import { MaxOutputTokens, ModelName, StopSequences, TextContentParts } from "./text";

/**
 * `POST /v1/chat/completions`, the OpenAI Chat Completions wire. Read loosely: clients send many
 * optional fields (`temperature`, `user`, `metadata`, …) that a gateway may ignore; docs/api.md
 * lists the ones honoured. The honoured ones are checked strictly.
 */
export const ChatMessage = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool"], {
    error: 'expected "system", "developer", "user", "assistant" or "tool"',
  }),
  /** Text, or text parts; `null` is allowed for an assistant turn that only called tools. */
  content: z.union([z.string(), TextContentParts, z.null()], { error: "expected a string or an array of text parts" }),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatCompletionRequest = z.object({
  model: ModelName,
  messages: z.array(ChatMessage, { error: "expected an array of messages" }).min(1, { error: "must hold at least one message" }),
  max_tokens: MaxOutputTokens.nullish(),
  max_completion_tokens: MaxOutputTokens.nullish(),
  stop: z.union([z.string(), StopSequences]).nullish(),
  n: z.literal(1, { error: "only 1 is supported" }).nullish(),
  stream: z.boolean({ error: "expected true or false" }).nullish(),
  stream_options: z.object({ include_usage: z.boolean({ error: "expected true or false" }).optional() }).nullish(),
}).superRefine((request, context) => {
  // Both bound the same thing; two different bounds would leave one silently unchecked.
  const { max_tokens: legacy, max_completion_tokens: current } = request;
  if (legacy != null && current != null && legacy !== current) {
    context.addIssue({ code: "custom", path: ["max_tokens"], message: "differs from max_completion_tokens; send one of the two (max_completion_tokens is the current name)" });
  }
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** Why generation stopped, on the Chat Completions wire. */
export const ChatFinishReason = z.enum(["stop", "length", "content_filter", "tool_calls"]);
export type ChatFinishReason = z.infer<typeof ChatFinishReason>;

export const ChatUsage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
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
      message: z.object({ role: z.literal("assistant"), content: z.string().nullable(), refusal: z.string().nullable() }),
      finish_reason: ChatFinishReason,
      logprobs: z.null(),
    }),
  ),
  usage: ChatUsage,
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** One server-sent event of a streamed chat completion (`data: <chunk>`; the stream ends with `data: [DONE]`). */
export const ChatCompletionChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
      finish_reason: ChatFinishReason.nullable(),
      logprobs: z.null(),
    }),
  ),
  /** Present on every chunk when the client asked for usage: `null`, then the totals on a last chunk with no choices. */
  usage: ChatUsage.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;
