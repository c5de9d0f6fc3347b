import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from "@gateway-keys/contract";

/** Extra details an error may carry onto the wire. */
export interface GatewayErrorDetails {
  /** Dotted path of the field to blame (`spendPolicy.limitUnits`, or a header name). */
  param?: string;
  /** On a stale `expectedVersion`: the key's version now. */
  currentVersion?: number;
  /** Response headers that go with the error, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * The gateway's one error class. Handlers throw it; the error handler turns it into the envelope
 * `{ error: { type, code, message, param?, currentVersion? } }` with the status the contract
 * assigns to the code. Messages must never contain a secret: they are sent and logged.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly currentVersion: number | undefined;
  readonly headers: Record<string, string> | undefined;
  /** The HTTP status the contract gives this error's code. A plain field: Fastify writes to it. */
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, details: GatewayErrorDetails = {}) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.param = details.param;
    this.currentVersion = details.currentVersion;
    this.headers = details.headers;
    this.statusCode = ERROR_STATUS[ERROR_CODES[code]];
  }

  /** The wire body. */
  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope["error"] = { type: ERROR_CODES[this.code], code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    if (this.currentVersion !== undefined) error.currentVersion = this.currentVersion;
    return { error };
  }
}

/**
 * Fastify's own errors that reach us before a handler runs, and what a client should do about them.
 * Messages are ours, never Fastify's or V8's: a JSON parse message quotes the body, which may hold a secret.
 */
function fromFastifyError(error: FastifyError): GatewayError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new GatewayError("payload_too_large", "The request body is larger than 64 KiB; send a smaller body.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new GatewayError("invalid_json", "The request body is not valid JSON; send one JSON object.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      // Our decision: no 415 in the contract; a body we cannot read as JSON is an invalid_json error.
      return new GatewayError("invalid_json", "Send the body as JSON with the header Content-Type: application/json.", {
        param: "Content-Type",
      });
    default:
      return undefined;
  }
}

/** Maps any thrown value to a GatewayError, logging what clients must not see. */
function toGatewayError(error: unknown, request: FastifyRequest): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as FastifyError;
  const known = typeof fastifyError?.code === "string" ? fromFastifyError(fastifyError) : undefined;
  if (known) return known;
  const status = typeof fastifyError?.statusCode === "number" ? fastifyError.statusCode : 500;
  if (status === 404) return new GatewayError("route_not_found", "No such route; check the method and path.");
  if (status >= 400 && status < 500) {
    return new GatewayError("validation_failed", "The request could not be read; check its headers and body.");
  }
  request.log.error({ err: error }, "unhandled error");
  return new GatewayError("internal_error", "The gateway failed to handle the request; it is safe to retry.");
}

/** Writes an error envelope. */
export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.statusCode).type("application/json; charset=utf-8").send(error.toEnvelope());
}

/** Installs the one error handler and the 404 handler: every error leaves as one envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error, request);
    if (gatewayError.statusCode < 500) {
      request.log.info({ code: gatewayError.code, status: gatewayError.statusCode }, "request refused");
    }
    return sendError(reply, gatewayError);
  });
  app.setNotFoundHandler((_request, reply) =>
    // The path is not echoed: a client may have pasted a secret into it.
    sendError(reply, new GatewayError("route_not_found", "No route matches this method and path; check both.")),
  );
}
