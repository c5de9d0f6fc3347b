import { z } from "zod";
import { MaxOutputTokens, ModelName, TextContentParts } from "./text";

/** One item of a Responses `input` array: a message (the `type` may be left out). */
export const ResponseInputMessage = z.object({
  type: z.literal("message", { error: 'only "message" items are supported' }).optional(),
  role: z.enum(["user", "assistant", "system", "developer"], { error: 'expected "user", "assistant", "system" or "developer"' }),
  content: z.union([z.string(), TextContentParts], { error: "expected a string or an array of text parts" }),
});
export type ResponseInputMessage = z.infer<typeof ResponseInputMessage>;

/**
 * `POST /v1/responses`, the OpenAI Responses wire (the seed's `{ model, input }` is its simplest
 * form). Read loosely, like every model request: fields not honoured are ignored (docs/api.md).
 */
export const ResponsesRequest = z.object({
  model: ModelName,
  input: z.union([z.string({ error: "expected a string" }), z.array(ResponseInputMessage).min(1, { error: "must hold at least one message" })], {
    error: "expected a string or an array of messages",
  }),
  instructions: z.string({ error: "expected a string" }).nullish(),
  max_output_tokens: MaxOutputTokens.nullish(),
  stream: z.boolean({ error: "expected true or false" }).nullish(),
});
export type ResponsesRequest = z.input<typeof ResponsesRequest>;

/** Generated text, as an output content part. */
export const ResponseOutputText = z.object({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()) });

/** The one output item this gateway produces: an assistant message. */
export const ResponseOutputMessage = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(ResponseOutputText),
});
export type ResponseOutputMessage = z.infer<typeof ResponseOutputMessage>;

export const ResponseUsage = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

/** `POST /v1/responses` answer: the generated text is at `output[0].content[0].text`. */
export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number().int(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  model: z.string(),
  output: z.array(ResponseOutputMessage),
  /** Set when generation stopped at `max_output_tokens`. */
  incomplete_details: z.object({ reason: z.literal("max_output_tokens") }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  error: z.null(),
  usage: ResponseUsage.nullable(),
});
export type ResponseObject = z.infer<typeof ResponseObject>;
