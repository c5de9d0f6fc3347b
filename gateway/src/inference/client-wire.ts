import type { GatewayError } from "../errors";
import type { SseStream } from "./sse";
import type { TextCompletion, TextDelta } from "./text";

/** What a stream writer is handed between its first and its last event. */
export type StreamPiece = Exclude<TextDelta, { kind: "end" }>;

/** Writes one answer as a wire's stream: its opening events on creation, then each piece, then the end. */
export interface StreamWriter {
  write(piece: StreamPiece): void;
  /** The last events, written once the charge is committed. */
  close(completion: TextCompletion): void;
  /** An error after the stream started, in the wire's own error event. */
  fail(error: GatewayError): void;
}

/**
 * A text wire as the client sees it (Chat Completions, Responses, Messages): how an answer that
 * the gateway built — a built-in model's, or one translated from another wire — looks, whole or
 * streamed. (An answer relayed from a provider of the client's own wire is sent as it came.)
 */
export interface ClientWire<Answer> {
  answer(completion: TextCompletion, modelId: string): Answer;
  /** Starts the stream: writes the opening events. */
  stream(sse: SseStream, modelId: string, inputTokens: number): StreamWriter;
}

/** Tool call arguments as a JSON object, for wires that carry them parsed; text that is not one is the provider's failure. */
export function parsedArguments(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text === "" ? "{}" : text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new SyntaxError("tool call arguments are not a JSON object");
  return value as Record<string, unknown>;
}
