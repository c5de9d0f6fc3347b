import { z } from "zod";
import { MaxOutputTokens, ModelName, StopSequences, TextContentParts } from "./text";

/**
 * `POST /v1/messages`, the Anthropic Messages wire. Read loosely: fields not honoured are ignored
 * (docs/api.md). `max_tokens` is required, as Anthropic requires it.
 */
export const MessagesRequest = z.object({
  model: ModelName,
  max_tokens: MaxOutputTokens,
  messages: z
    .array(
      z.object({
        role: z.enum(["user", "assistant"], { error: 'expected "user" or "assistant"' }),
        content: z.union([z.string(), TextContentParts], { error: "expected a string or an array of text blocks" }),
      }),
      { error: "expected an array of messages" },
    )
    .min(1, { error: "must hold at least one message" }),
  system: z.union([z.string(), TextContentParts], { error: "expected a string or an array of text blocks" }).nullish(),
  stop_sequences: StopSequences.nullish(),
  stream: z.boolean({ error: "expected true or false" }).nullish(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** Why generation stopped, on the Messages wire. */
export const MessagesStopReason = z.enum(["end_turn", "max_tokens", "stop_sequence"]);
export type MessagesStopReason = z.infer<typeof MessagesStopReason>;

export const MessagesUsage = z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() });

/** The answer of a non-streamed message. */
export const MessageObject = z.object({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.object({ type: z.literal("text"), text: z.string() })),
  stop_reason: MessagesStopReason.nullable(),
  stop_sequence: z.string().nullable(),
  usage: MessagesUsage,
});
export type MessageObject = z.infer<typeof MessageObject>;

/** The error body on `/v1/messages`, as Anthropic clients read it. */
export const AnthropicErrorBody = z.object({
  type: z.literal("error"),
  error: z.object({ type: z.string(), message: z.string() }),
});
export type AnthropicErrorBody = z.infer<typeof AnthropicErrorBody>;
