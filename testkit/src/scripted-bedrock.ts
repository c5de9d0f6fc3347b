/**
 * A scripted Amazon Bedrock runtime: the scripted provider (scripted-provider.ts) behind the
 * checks the real one makes before it reads a request — every request's AWS Signature Version 4
 * verified with the AWS SDK's own signer and the secret key of the access key it names — and the
 * answers the real one streams, as AWS event-stream messages encoded by the AWS SDK's own codec
 * (valid CRCs).
 *
 *   const bedrock = await startScriptedBedrock({ region: "us-east-1", credentials: [KEYS] });
 *   bedrock.answer(() => converseStream([{ type: "messageStart", payload: { role: "assistant" } }, …]));
 *
 * A request signed with an unknown access key, a wrong secret or session token, or a date more
 * than 5 minutes from the provider's clock, is refused 403 as AWS refuses it, and never reaches
 * the script (it is still recorded).
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialIdentity, MessageHeaders } from "@smithy/types";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { startScriptedProvider, type ReceivedRequest, type Script, type ScriptedProvider } from "./scripted-provider.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** How far a request's signing date may be from the provider's clock, as AWS allows. */
const SIGNATURE_WINDOW_MS = 5 * 60_000;

export interface ScriptedBedrockOptions {
  region: string;
  /** The credentials the provider knows: a request signed with any other key is refused. */
  credentials: AwsCredentialIdentity[];
}

export interface ScriptedBedrock extends ScriptedProvider {
  /** Moves the provider's clock (the signature window is checked against it), e.g. 20 minutes ahead. */
  skewClock(ms: number): void;
  /** Why each refused request was refused, in order (empty while every signature held). */
  refusals: string[];
}

/** An AWS JSON error, as Bedrock sends it: the status, `x-amzn-ErrorType` and `{ "message" }`. */
export function awsError(status: number, type: string, message: string): Script {
  return { status, json: { message }, headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } };
}

/** One event-stream message of the stream: an event of `type` with a JSON payload, or an exception. */
export type StreamFrame = { type: string; payload: unknown } | { exception: string; message: string };

function headersOf(frame: StreamFrame): MessageHeaders {
  const string = (value: string) => ({ type: "string" as const, value });
  return "exception" in frame
    ? { ":message-type": string("exception"), ":exception-type": string(frame.exception), ":content-type": string("application/json") }
    : { ":message-type": string("event"), ":event-type": string(frame.type), ":content-type": string("application/json") };
}

/** The bytes of one frame, encoded (prelude, headers, payload, CRC32s) by the AWS SDK's codec. */
export function encodeFrame(frame: StreamFrame): Uint8Array {
  const payload = "exception" in frame ? { message: frame.message } : frame.payload;
  return codec.encode({ headers: headersOf(frame), body: fromUtf8(JSON.stringify(payload)) });
}

/** A ConverseStream answer: each event its own event-stream message. */
export function converseStream(events: { type: string; payload: unknown }[] | StreamFrame[], options: { gapMs?: number } = {}): Script {
  return eventStream(events, options);
}

/** An InvokeModelWithResponseStream answer: each Messages event as a `chunk` whose `bytes` are its JSON in base64. */
export function invokeStream(events: ({ type: string } & Record<string, unknown>)[], options: { gapMs?: number; then?: StreamFrame[] } = {}): Script {
  const chunks: StreamFrame[] = events.map((event) => ({ type: "chunk", payload: { bytes: Buffer.from(JSON.stringify(event)).toString("base64") } }));
  return eventStream([...chunks, ...(options.then ?? [])], options);
}

function eventStream(frames: StreamFrame[], options: { gapMs?: number }): Script {
  return {
    handle(_request, response) {
      response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-scripted" });
      void (async () => {
        for (const frame of frames) {
          if (response.destroyed) return;
          const bytes = encodeFrame(frame);
          // Cut each message in two writes: the gateway must join messages split across chunks.
          const half = Math.floor(bytes.length / 2);
          response.write(bytes.subarray(0, half));
          response.write(bytes.subarray(half));
          if (options.gapMs) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
        }
        response.end();
      })();
    },
  };
}

/** `Credential=AKID/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=a;b, Signature=…` */
function authorizationOf(value: string): { accessKeyId: string; scope: string[]; signedHeaders: string[] } | undefined {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(value);
  return match ? { accessKeyId: match[1]!, scope: match[2]!.split("/"), signedHeaders: match[3]!.split(";") } : undefined;
}

/** `20260101T120000Z` as a date. */
function amzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return match ? new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!)) : undefined;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);

/**
 * Why AWS would refuse the request's signature, or undefined when it holds: the request is signed
 * again by the AWS SDK's signer, with the secret of the key it names and its own signing date
 * and signed headers, and the two Authorization headers compared.
 */
async function signatureRefusal(request: ReceivedRequest, options: ScriptedBedrockOptions, nowMs: number): Promise<Script | undefined> {
  const authorization = authorizationOf(single(request.headers.authorization) ?? "");
  if (!authorization) return awsError(403, "MissingAuthenticationTokenException", "Missing Authentication Token");
  const credentials = options.credentials.find((known) => known.accessKeyId === authorization.accessKeyId);
  if (!credentials) return awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  const [, region, service, terminator] = authorization.scope;
  if (region !== options.region || service !== "bedrock" || terminator !== "aws4_request") {
    return awsError(403, "InvalidSignatureException", `Credential should be scoped to a valid region and the service bedrock, not ${authorization.scope.join("/")}.`);
  }
  const date = amzDate(single(request.headers["x-amz-date"]) ?? "");
  if (!date) return awsError(403, "IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  if (Math.abs(date.getTime() - nowMs) > SIGNATURE_WINDOW_MS) {
    return awsError(403, "InvalidSignatureException", `Signature expired: ${single(request.headers["x-amz-date"])} is now earlier than the allowed window.`);
  }
  if (credentials.sessionToken !== undefined && single(request.headers["x-amz-security-token"]) !== credentials.sessionToken) {
    return awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  }
  // The body's hash is computed here, never taken from the request: a changed body fails the signature.
  const headers: Record<string, string> = {};
  for (const name of authorization.signedHeaders) if (name !== "x-amz-content-sha256") headers[name] = single(request.headers[name]) ?? "";
  const url = new URL(request.url, "http://scripted.invalid");
  const signer = new SignatureV4({ service: "bedrock", region: options.region, credentials, sha256: Sha256, applyChecksum: authorization.signedHeaders.includes("x-amz-content-sha256") });
  const signed = await signer.sign(
    { method: request.method, protocol: "http:", hostname: url.hostname, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: request.rawBody },
    { signingDate: date },
  );
  if (signed.headers.authorization !== single(request.headers.authorization)) {
    return awsError(
      403,
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
    );
  }
  return undefined;
}

export async function startScriptedBedrock(options: ScriptedBedrockOptions): Promise<ScriptedBedrock> {
  const provider = await startScriptedProvider();
  let skewMs = 0;
  const refusals: string[] = [];
  let script: (request: ReceivedRequest) => Script = () => awsError(500, "InternalServerException", "no script");
  // The signature is checked before the script answers: a handle that waits for the check.
  provider.answer(() => ({
    handle(request, response, raw) {
      void signatureRefusal(request, options, Date.now() + skewMs).then((refusal) => {
        const chosen = refusal ?? script(request);
        if (refusal && "json" in refusal) refusals.push((refusal.json as { message: string }).message);
        if ("handle" in chosen) return chosen.handle(request, response, raw);
        if ("events" in chosen) throw new Error("a Bedrock script answers with JSON or converseStream/invokeStream, not server-sent events");
        const isJson = "json" in chosen;
        response.writeHead(chosen.status ?? 200, { "content-type": isJson ? "application/json" : "text/plain", ...chosen.headers });
        response.end(isJson ? JSON.stringify(chosen.json) : chosen.text);
      }).catch(() => response.destroy()); // a script that throws ends its answer: the gateway sees a reset
    },
  }));
  return {
    ...provider,
    refusals,
    answer: (next) => {
      script = next;
    },
    skewClock: (ms) => {
      skewMs = ms;
    },
  };
}
