import { EventStreamCodec } from "@smithy/eventstream-codec";
import type { Message } from "@smithy/types";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { GatewayError } from "../../../errors";

/**
 * The AWS event-stream framing of Bedrock's streamed answers (ConverseStream,
 * InvokeModelWithResponseStream): binary messages, each with its length first, headers such as
 * `:message-type` and `:event-type`, a payload and CRC32 checksums. The codec of the AWS SDK
 * (`@smithy/eventstream-codec`) decodes each message and checks its checksums; this module only
 * cuts the body's chunks into whole messages for it, and turns an exception message into the
 * gateway's error.
 */

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A message's first four bytes: its total length, big-endian. */
const PRELUDE_LENGTH_BYTES = 4;

/** The decoded messages of an event-stream body, as whole messages arrive. */
export async function* eventStreamMessages(body: AsyncIterable<Buffer>): AsyncIterable<Message> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= PRELUDE_LENGTH_BYTES) {
      const length = pending.readUInt32BE(0);
      if (pending.length < length) break;
      // decode checks both checksums and throws on a corrupt message.
      yield codec.decode(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  }
  if (pending.length > 0) throw new Error("the event stream ended inside a message");
}

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name];
  return value?.type === "string" ? value.value : undefined;
}

/** A data event of the stream: its `:event-type` and JSON payload. */
export interface StreamEvent {
  type: string;
  payload: string;
}

/**
 * The stream's events; an exception message (`:message-type` exception or error) is thrown as the
 * gateway error that means the same (`exceptionError`).
 */
export async function* bedrockStreamEvents(body: AsyncIterable<Buffer>, provider: string, redact: (text: string) => string): AsyncIterable<StreamEvent> {
  for await (const message of eventStreamMessages(body)) {
    const kind = header(message, ":message-type");
    if (kind === "event") {
      yield { type: header(message, ":event-type") ?? "", payload: toUtf8(message.body) };
    } else if (kind === "exception") {
      throw exceptionError(header(message, ":exception-type") ?? "exception", redactedMessage(messageOf(toUtf8(message.body)), redact), provider);
    } else {
      throw exceptionError(header(message, ":error-code") ?? "error", redactedMessage(header(message, ":error-message"), redact), provider);
    }
  }
}

const redactedMessage = (message: string | undefined, redact: (text: string) => string) => (message === undefined ? undefined : redact(message));

function messageOf(payload: string): string | undefined {
  try {
    const parsed = JSON.parse(payload) as { message?: unknown; Message?: unknown };
    const message = parsed.message ?? parsed.Message;
    return typeof message === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Bedrock exception as the gateway error with the same meaning (see upstream/provider-errors.ts):
 * the request refused as invalid is the client's to fix (400, never retried on another route); a
 * throttled one is rate limited (429 once no route is left); a model that timed out is a timeout;
 * anything else is this route's failure.
 */
export function exceptionError(type: string, message: string | undefined, provider: string): GatewayError {
  const said = message ? `: ${message}` : "";
  switch (type.charAt(0).toLowerCase() + type.slice(1)) {
    case "validationException":
      return new GatewayError("upstream_rejected", message ?? `The provider ${provider} refused the request (validationException) without saying why.`, { upstream: { status: 400, code: "validationException" } });
    case "throttlingException":
    case "serviceQuotaExceededException":
    case "modelNotReadyException":
      return new GatewayError("upstream_rate_limited", `The provider ${provider} is limiting the rate of requests (${type})${said}; retry later.`);
    case "modelTimeoutException":
      return new GatewayError("upstream_timeout", `The model at the provider ${provider} did not answer in time (${type}).`);
    default:
      return new GatewayError("upstream_failed", `The provider ${provider} ended the stream with ${type}${said}.`);
  }
}
