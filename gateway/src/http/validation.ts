import type { FastifyInstance } from "fastify";
import type { ZodError, ZodType, core, z } from "zod";
import { describeIssues, fieldIssues, formatPath, specificIssues } from "@gateway-keys/contract";
import { GatewayError } from "../errors";

/**
 * Makes route schemas zod schemas from the contract. Fastify runs them before the handler; a
 * failure becomes 400 `validation_failed` naming every issue, with `param` the first field's path,
 * and the parsed value (defaults applied) replaces the raw one, so handlers see contract types.
 * Responses are written through their declared schema too, so a reply can only carry the fields
 * the contract names (a stored record's hash, say, can never leak into one).
 */
export function installZodValidation(app: FastifyInstance): void {
  app.setSerializerCompiler<ZodType>(({ schema }) => {
    return (data: unknown) => {
      // parse, not encode: read schemas may normalise (a credit amount to its one spelling).
      const result = schema.safeParse(data);
      if (!result.success) throw new Error(`a reply does not match its schema: ${describeIssues(fieldIssues(result.error))}`);
      return JSON.stringify(result.data);
    };
  });
  app.setValidatorCompiler<ZodType>(({ schema, httpPart }) => {
    return (data: unknown) => {
      if (httpPart === "body" && (data === null || data === undefined)) {
        return {
          error: new GatewayError("invalid_json", "Send a JSON object body with Content-Type: application/json."),
        };
      }
      if (httpPart === "body" && (typeof data !== "object" || Array.isArray(data))) {
        return { error: new GatewayError("validation_failed", "The body must be a JSON object, not an array or a bare value.") };
      }
      const result = schema.safeParse(data);
      if (result.success) return { value: result.data };
      return { error: validationError(result.error, httpPart === "querystring" ? "query" : httpPart === "params" ? "path" : "body") };
    };
  });
}

/** 400 `validation_failed` naming every issue, `param` the first field's path. */
export function validationError(error: ZodError, part: "body" | "query" | "path" = "body"): GatewayError {
  const where = part === "query" ? "query parameter" : part === "path" ? "path parameter" : "field";
  // An issue of the whole object is labelled `(body)`; here the object may be the query or the path.
  const issues = fieldIssues(error).map((issue) => (issue.path === "(body)" ? { ...issue, path: `(${part})` } : issue));
  const param = paramOf(specificIssues(error)[0]);
  return new GatewayError("validation_failed", `Invalid ${where}s: ${describeIssues(issues)}.`, param === undefined ? {} : { param });
}

/** A body read in a handler with `schema` (what a built-in model takes, beyond the route's envelope), or 400 as the route's validation says it. */
export function parseBody<Schema extends ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

/** The field to blame for an issue; for an unknown field, the unknown field itself. */
export function paramOf(issue: core.$ZodIssue | undefined): string | undefined {
  if (!issue) return undefined;
  const path = issue.code === "unrecognized_keys" && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
  return path.length === 0 ? undefined : formatPath(path);
}
