import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GatewayError } from "../errors";
import { anthropicError } from "../errors";
import { databaseFaultReason, databaseUnavailable } from "../store/faults";

/**
 * Fastify's own errors that reach us before a handler runs, and what a client should do about them.
 * Messages are ours, never Fastify's or V8's: theirs quote the body or the path, which may hold a secret.
 */
function fromFastifyError(error: FastifyError, request: FastifyRequest): GatewayError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
    case "FST_REQ_FILE_TOO_LARGE": {
      const limit = request.routeOptions?.bodyLimit ?? 64 * 1024;
      const shown = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MiB` : `${Math.round(limit / 1024)} KiB`;
      return new GatewayError("payload_too_large", `The request body is larger than this endpoint's ${shown}; send a smaller body.`);
    }
    case "FST_FILES_LIMIT":
      return new GatewayError("validation_failed", "Invalid fields: file: send exactly one file part.", { param: "file" });
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new GatewayError("invalid_json", "The request body is not valid JSON; send one JSON object.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      // Our decision: no 415 in the contract; a body we cannot read as JSON is an invalid_json error.
      return new GatewayError("invalid_json", "Send the body as JSON with the header Content-Type: application/json.", {
        param: "Content-Type",
      });
    case "FST_ERR_BAD_URL":
      return new GatewayError("validation_failed", "The request path is not valid percent-encoding; encode each path segment once.", {
        param: "path",
      });
    case "FST_ERR_MAX_PARAM_LENGTH":
      // Our decision: 400 rather than Fastify's 414 (not in the code table); no id is that long.
      return new GatewayError("validation_failed", "A path segment is longer than any id this API uses; check the path.", {
        param: "path",
      });
    default:
      return undefined;
  }
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as Partial<FastifyError>).code === "string";
}

/** Maps any thrown value to a GatewayError, logging what clients must not see. */
function toGatewayError(error: unknown, request: FastifyRequest): GatewayError {
  if (error instanceof GatewayError) return error;
  const known = isFastifyError(error) ? fromFastifyError(error, request) : undefined;
  if (known) return known;
  const fault = databaseFaultReason(error);
  if (fault !== undefined) {
    // The cause (which may name a host or a file) goes to the log only.
    request.log.warn({ err: error }, "database unavailable");
    return databaseUnavailable(fault);
  }
  const status = error instanceof Error ? (error as Partial<FastifyError>).statusCode : undefined;
  if (status === 404) return new GatewayError("route_not_found", "No such route; check the method and path.");
  if (status !== undefined && status >= 400 && status < 500) {
    return new GatewayError("validation_failed", "The request could not be read; check its headers and body.");
  }
  request.log.error({ err: error }, "unhandled error");
  return new GatewayError("internal_error", "The gateway failed to handle the request; it is safe to retry.");
}

/** Writes an error envelope. */
export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  const body = reply.request.routeOptions?.config?.errorWire === "anthropic" ? anthropicError(error) : error.toEnvelope();
  return reply.code(error.statusCode).type("application/json; charset=utf-8").send(body);
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const gatewayError = toGatewayError(error, request);
  if (gatewayError.statusCode < 500) {
    request.log.info({ code: gatewayError.code, status: gatewayError.statusCode }, "request refused");
  }
  return sendError(reply, gatewayError);
}

/**
 * Errors Fastify meets before routing (a path that is not valid percent-encoding, an over-long
 * path parameter): pass as the `frameworkErrors` server option so they leave as our envelope too.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  refuse(request, reply, error);
}

/** Installs the one error handler and the 404 handler: every error leaves as one envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => refuse(request, reply, error));
  app.setNotFoundHandler((_request, reply) =>
    // The path is not echoed: a client may have pasted a secret into it.
    sendError(reply, new GatewayError("route_not_found", "No route matches this method and path; check both.")),
  );
}
