import { z } from "zod";
import { JsonSchemaObject, MaxOutputTokens, ModelName, SamplingNumber, StreamFlag } from "./text";

/**
 * `POST /v1/responses`, the OpenAI Responses wire (the seed's `{ model, input }` is its simplest
 * form). The envelope reads only what the gateway needs (see text.ts).
 */
export const ResponsesRequest = z.looseObject({
  model: ModelName,
  input: z.union([z.string({ error: "expected a string" }), z.array(z.looseObject({})).min(1, { error: "must hold at least one item" })], {
    error: "expected a string or an array of input items",
  }),
  max_output_tokens: MaxOutputTokens.nullish(),
  stream: StreamFlag.nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

// --- The translatable form ---------------------------------------------------------------------

export const ResponseInputText = z.strictObject({ type: z.enum(["input_text", "output_text"]), text: z.string({ error: "expected a string" }) });
export const ResponseInputImage = z.strictObject({
  type: z.literal("input_image"),
  image_url: z.string({ error: "expected an https: or data: URL (file_id images cannot be translated)" }),
  detail: z.enum(["auto", "low", "high"]).optional(),
});
export const ResponseInputContent = z.discriminatedUnion("type", [ResponseInputText, ResponseInputImage], {
  error: 'expected an "input_text", "output_text" or "input_image" part (other parts cannot be translated)',
});

export const ResponseInputMessage = z.strictObject({
  type: z.literal("message"),
  role: z.enum(["user", "assistant", "system", "developer"], { error: 'expected "user", "assistant", "system" or "developer"' }),
  content: z.union([z.string(), z.array(ResponseInputContent)], { error: "expected a string or an array of parts" }),
  /** Sent back by clients that replay a response's output items. */
  id: z.string().optional(),
  status: z.string().optional(),
});
export const ResponseFunctionCallItem = z.strictObject({
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  id: z.string().optional(),
  status: z.string().optional(),
});
export const ResponseFunctionCallOutputItem = z.strictObject({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.union([z.string(), z.array(ResponseInputContent)]),
  id: z.string().optional(),
  status: z.string().optional(),
});
/** An input item: a message (whose `type` may be left out), a function call, or a call's output. */
export const ResponseInputItem = z.preprocess(
  (item) => (item !== null && typeof item === "object" && !("type" in item) ? { ...item, type: "message" } : item),
  z.discriminatedUnion("type", [ResponseInputMessage, ResponseFunctionCallItem, ResponseFunctionCallOutputItem], {
    error: 'expected a "message", "function_call" or "function_call_output" item (other items cannot be translated)',
  }),
);
export type ResponseInputItem = z.infer<typeof ResponseInputItem>;

export const ResponseFunctionTool = z.strictObject({
  type: z.literal("function", { error: 'expected "function" (built-in tools cannot be translated)' }),
  name: z.string(),
  description: z.string().nullish(),
  parameters: JsonSchemaObject.nullish(),
  strict: z.boolean().nullish(),
});

export const ResponseToolChoice = z.union([z.enum(["none", "auto", "required"]), z.strictObject({ type: z.literal("function"), name: z.string() })], {
  error: 'expected "none", "auto", "required" or { type: "function", name }',
});

export const ResponseTextFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({ type: z.literal("json_schema"), name: z.string(), schema: JsonSchemaObject, description: z.string().optional(), strict: z.boolean().nullish() }),
]);

export const ResponsesTranslatable = z.strictObject({
  model: ModelName,
  input: z.union([z.string(), z.array(ResponseInputItem).min(1, { error: "must hold at least one item" })]),
  instructions: z.string({ error: "expected a string" }).nullish(),
  max_output_tokens: MaxOutputTokens.nullish(),
  stream: StreamFlag.nullish(),
  temperature: SamplingNumber.nullish(),
  top_p: SamplingNumber.nullish(),
  tools: z.array(ResponseFunctionTool).optional(),
  tool_choice: ResponseToolChoice.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.strictObject({ format: ResponseTextFormat.optional() }).optional(),
  user: z.string().optional(),
  /** Attached to the response object the gateway answers with; never sent to a model. */
  metadata: z.record(z.string(), z.string()).nullish(),
  /** The gateway keeps no responses: `store: true` cannot be honoured by a translation, `false` is what happens. */
  store: z.literal(false, { error: "only false: the gateway stores no responses" }).nullish(),
});
export type ResponsesTranslatable = z.infer<typeof ResponsesTranslatable>;

// --- Answers the gateway builds ----------------------------------------------------------------

/** Generated text, as an output content part. */
export const ResponseOutputText = z.object({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) });

export const ResponseOutputMessage = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(ResponseOutputText),
});
export type ResponseOutputMessage = z.infer<typeof ResponseOutputMessage>;

export const ResponseOutputFunctionCall = z.object({
  type: z.literal("function_call"),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
});
export type ResponseOutputFunctionCall = z.infer<typeof ResponseOutputFunctionCall>;

export const ResponseOutputItem = z.union([ResponseOutputMessage, ResponseOutputFunctionCall]);
export type ResponseOutputItem = z.infer<typeof ResponseOutputItem>;

export const ResponseUsage = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int(), cache_write_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});
export type ResponseUsage = z.infer<typeof ResponseUsage>;

/** `POST /v1/responses` answer: the generated text is at `output[0].content[0].text`. */
export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number().int(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  model: z.string(),
  output: z.array(ResponseOutputItem),
  /** Set when generation stopped at `max_output_tokens`. */
  incomplete_details: z.object({ reason: z.literal("max_output_tokens") }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  error: z.null(),
  tools: z.array(z.unknown()),
  tool_choice: z.unknown(),
  parallel_tool_calls: z.boolean(),
  metadata: z.record(z.string(), z.string()),
  temperature: z.number().nullable(),
  top_p: z.number().nullable(),
  /** Left out while the response is in progress (OpenAI's document does not let it be `null`). */
  usage: ResponseUsage.optional(),
});
export type ResponseObject = z.infer<typeof ResponseObject>;
