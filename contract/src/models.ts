import { z } from "zod";

/** One model of `GET /v1/models`, with its price in credits. */
export const Model = z.object({
  object: z.literal("model"),
  id: z.string(),
  description: z.string(),
  pricing: z.object({
    /** Credits charged per request, as a decimal string. */
    perRequestUnits: z.string(),
    /** Credits charged per character of input plus output. */
    perCharacterUnits: z.string(),
  }),
});
export type Model = z.infer<typeof Model>;

/** `POST /v1/responses` body, as the seed gives it. */
export const ResponsesRequest = z.strictObject({
  model: z.string({ error: "expected a model id string" }).min(1, { error: "must not be empty" }).max(128),
  input: z.string({ error: "expected a string" }).max(32_768, { error: "must be at most 32768 characters" }),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/** `POST /v1/responses` answer: the generated text is at `output[0].content[0].text`. */
export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal("response"),
  model: z.string(),
  output: z.array(
    z.object({
      type: z.literal("message"),
      role: z.literal("assistant"),
      content: z.array(z.object({ type: z.literal("output_text"), text: z.string() })),
    }),
  ),
  usage: z.object({ inputCharacters: z.number().int(), outputCharacters: z.number().int(), costUnits: z.string() }),
});
export type ResponseObject = z.infer<typeof ResponseObject>;

/** `GET /v1/startups`: public metadata about this gateway. */
export const GatewayInfo = z.object({
  object: z.literal("gateway_info"),
  name: z.string(),
  version: z.string(),
  apiVersion: z.literal("v1"),
  /** Extensions beyond the seed contract a client may use, e.g. `single_key_get`. */
  extensions: z.array(z.string()),
});
export type GatewayInfo = z.infer<typeof GatewayInfo>;
