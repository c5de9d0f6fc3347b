import { z } from "zod";
import { JsonSchemaObject, MaxOutputTokens, ModelName, SamplingNumber, StreamFlag, stopSequences } from "./text";

/** `POST /v1/messages`, the Anthropic Messages wire. `max_tokens` is required, as Anthropic requires it. */

/** The envelope: what the gateway reads of every Messages request (see text.ts). */
export const MessagesRequest = z.looseObject({
  model: ModelName,
  max_tokens: MaxOutputTokens,
  messages: z
    .array(z.looseObject({ role: z.enum(["user", "assistant"], { error: 'expected "user" or "assistant"' }) }), { error: "expected an array of messages" })
    .min(1, { error: "must hold at least one message" }),
  stream: StreamFlag.nullish(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

// --- The translatable form ---------------------------------------------------------------------

export const AnthropicTextBlock = z.strictObject({ type: z.literal("text"), text: z.string({ error: "expected a string" }) });
export const AnthropicImageBlock = z.strictObject({
  type: z.literal("image"),
  source: z.discriminatedUnion(
    "type",
    [
      z.strictObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
      z.strictObject({ type: z.literal("url"), url: z.string() }),
    ],
    { error: 'expected a source of type "base64" or "url"' },
  ),
});
export const AnthropicToolUseBlock = z.strictObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown(), { error: "expected an object" }),
});
export const AnthropicToolResultBlock = z.strictObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [AnthropicTextBlock, AnthropicImageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});
export const AnthropicContentBlock = z.discriminatedUnion("type", [AnthropicTextBlock, AnthropicImageBlock, AnthropicToolUseBlock, AnthropicToolResultBlock], {
  error: 'expected a "text", "image", "tool_use" or "tool_result" block (other blocks cannot be translated)',
});
export type AnthropicContentBlock = z.infer<typeof AnthropicContentBlock>;

export const AnthropicTool = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  input_schema: JsonSchemaObject,
  strict: z.boolean().optional(),
});
export type AnthropicTool = z.infer<typeof AnthropicTool>;

export const AnthropicToolChoice = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal("none") }),
  ],
  { error: 'expected type "auto", "any", "tool" or "none"' },
);
export type AnthropicToolChoice = z.infer<typeof AnthropicToolChoice>;

export const MessagesTranslatable = z.strictObject({
  model: ModelName,
  max_tokens: MaxOutputTokens,
  messages: z
    .array(
      z.strictObject({
        role: z.enum(["user", "assistant"]),
        content: z.union([z.string(), z.array(AnthropicContentBlock)], { error: "expected a string or an array of blocks" }),
      }),
    )
    .min(1, { error: "must hold at least one message" }),
  system: z.union([z.string(), z.array(AnthropicTextBlock)], { error: "expected a string or an array of text blocks" }).optional(),
  stop_sequences: stopSequences(16).optional(),
  stream: StreamFlag.optional(),
  temperature: SamplingNumber.optional(),
  top_p: SamplingNumber.optional(),
  top_k: z.number().int().optional(),
  tools: z.array(AnthropicTool).optional(),
  tool_choice: AnthropicToolChoice.optional(),
  metadata: z.strictObject({ user_id: z.string().nullish() }).optional(),
  output_config: z.strictObject({ format: z.strictObject({ type: z.literal("json_schema"), schema: JsonSchemaObject }).nullish() }).optional(),
});
export type MessagesTranslatable = z.infer<typeof MessagesTranslatable>;

// --- Answers the gateway builds ----------------------------------------------------------------

/** Why generation stopped, on the Messages wire. */
export const MessagesStopReason = z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal"]);
export type MessagesStopReason = z.infer<typeof MessagesStopReason>;

export const MessagesUsage = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int().nullable().optional(),
  cache_read_input_tokens: z.number().int().nullable().optional(),
});

/** A content block of an answer: text, or a call of one of the request's tools. */
export const MessageAnswerBlock = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
]);

/** The answer of a non-streamed message. */
export const MessageObject = z.object({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(MessageAnswerBlock),
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
