import { BuiltInSpeechRequest, type SpeechRequest } from "@gateway-keys/contract";
import { parseBody } from "../../../http/validation";
import { costOf } from "../../../metering/pricing";
import type { MediaWire } from "../../media-wire";
import { countTokens } from "../../tokens";

/** `POST /v1/audio/speech`: audio bytes out (WAV or raw PCM from a built-in model; a forwarded model's as its provider sent them). */
export const SPEECH: MediaWire<"speech", SpeechRequest, BuiltInSpeechRequest, { audio: Buffer; contentType: string }> = {
  family: "speech",
  requestedModel: (body) => body.model,
  read: (body, forwarded) => ({ modelId: body.model, logged: body.input, ...(!forwarded && { parsed: parseBody(BuiltInSpeechRequest, body) }) }),
  forward(body, model) {
    // Priced by the characters of the input (code points), the unit speech providers bill.
    const charge = costOf(model.pricing, { inputTokens: Array.from(body.input).length, outputTokens: 0 });
    return { path: "/audio/speech", body: { json: body }, reserveMicros: charge, cost: () => charge };
  },
  bound(parsed) {
    const tokens = countTokens(parsed.input);
    return { inputTokens: tokens, outputTokens: tokens };
  },
  async run(parsed, model) {
    const spoken = await model.engine.synthesize(parsed.input, parsed.voice, parsed.speed ?? 1, parsed.response_format ?? "wav");
    return { result: spoken, usage: spoken.usage, output: null };
  },
  answer: (spoken) => ({ bytes: spoken.audio, contentType: spoken.contentType }),
};
