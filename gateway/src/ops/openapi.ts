import swagger, { type SwaggerTransform } from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z, type ZodType } from "zod";
import { IDEMPOTENCY_KEY_PATTERN, namedSchemaRegistry, NoQuery } from "@gateway-keys/contract";
import { IDEMPOTENCY_HEADER_NAME } from "../http/idempotency-header";

/**
 * What a route's zod schemas cannot say, for its OpenAPI operation: a body Fastify must not
 * validate as JSON (a multipart upload) and answers that are not JSON (audio bytes, plain text).
 * Declared beside the route as `config: { openapi: … }`; only the document reads it.
 */
export interface OpenApiHints {
  /** The request body by media type. A zod schema, plus the names of its fields that are binary file parts. */
  requestBody?: { mediaType: string; schema: ZodType; binaryFields?: readonly string[] };
  /** Answers by status: a description and, by media type, a zod schema or `"binary"` or `"text"`. */
  responses?: Record<number, { description: string; content: Record<string, ZodType | "binary" | "text"> }>;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Documentation a route's schemas cannot carry; see {@link OpenApiHints}. */
    openapi?: OpenApiHints;
  }
}

/** Which credential a path takes, by prefix; the first match wins. Auth hooks are per route, so the document says it here. */
const SECURITY_BY_PREFIX: readonly { prefix: string; security: Record<string, string[]>[] }[] = [
  { prefix: "/v1/account/", security: [{ provisioningKey: [] }] },
  // Anonymous, or an API key to see only the models it may call.
  { prefix: "/v1/models", security: [{}, { apiKey: [] }] },
  { prefix: "/v1/startups", security: [] },
  { prefix: "/v1/", security: [{ apiKey: [] }] },
  { prefix: "/", security: [] },
];

function tagOf(url: string): string {
  if (url.startsWith("/v1/account/")) return "account";
  if (url.startsWith("/v1/")) return "model";
  return "operations";
}

/** A zod schema as the JSON Schema of a request (input) or an answer (output). */
function jsonSchemaOf(schema: ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return json;
}

function mediaSchema(content: ZodType | "binary" | "text"): Record<string, unknown> {
  if (content === "binary") return { type: "string", format: "binary" };
  if (content === "text") return { type: "string" };
  return jsonSchemaOf(content, "output");
}

/** The contract's named wire objects: each becomes `#/components/schemas/<name>`, referred to by every operation. */
const schemaRegistry = namedSchemaRegistry();
const jsonSchemaTransform = createJsonSchemaTransform({ schemaRegistry });
const addNamedSchemas = createJsonSchemaTransformObject({ schemaRegistry });

/**
 * Route schemas (zod, from the contract) to OpenAPI: fastify-type-provider-zod's transform, plus
 * each route's {@link OpenApiHints}, its tag and credential, and the error envelope as every
 * operation's other answers.
 */
const transform: SwaggerTransform = (input) => {
  const transformed = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]) as { schema: Record<string, unknown>; url: string };
  const schema = { ...transformed.schema };
  if (schema.hide) return transformed;
  const hints = (input.route as { config?: { openapi?: OpenApiHints } } | undefined)?.config?.openapi;
  if (hints?.requestBody) {
    const body = jsonSchemaOf(hints.requestBody.schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
    for (const field of hints.requestBody.binaryFields ?? []) {
      body.properties = { ...body.properties, [field]: { type: "string", format: "binary" } };
      body.required = [...(body.required ?? []), field];
    }
    schema.body = body;
    schema.consumes = [hints.requestBody.mediaType];
  }
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  for (const [status, answer] of Object.entries(hints?.responses ?? {})) {
    response[status] = {
      description: answer.description,
      content: Object.fromEntries(Object.entries(answer.content).map(([mediaType, content]) => [mediaType, { schema: mediaSchema(content) }])),
    };
  }
  response.default = { description: "An error, in the error envelope (docs/api/errors.md#errors).", $ref: "#/components/schemas/ErrorEnvelope" };
  schema.response = response;
  schema.tags ??= [tagOf(transformed.url)];
  schema.security ??= SECURITY_BY_PREFIX.find(({ prefix }) => transformed.url.startsWith(prefix))!.security;
  return { schema, url: transformed.url };
};

/**
 * A text route whose body has a `stream` flag answers `text/event-stream` when it is true: added
 * to its 200 answer here, from the document itself, so no route has to say it.
 */
function addEventStreams(document: { paths?: Record<string, Record<string, OpenApiOperation>> }): void {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody?.content?.["application/json"]?.schema as { properties?: Record<string, unknown> } | undefined;
      const ok = operation.responses?.["200"];
      if (body?.properties?.stream && ok?.content) {
        ok.content["text/event-stream"] = { schema: { type: "string", description: "Server-sent events, when the request sets `stream: true` (docs/api/text.md)." } };
      }
    }
  }
}

/**
 * Every account mutation requires the Idempotency-Key header (the service contract; enforced by
 * http/idempotency-header.ts's hook, which no route schema shows): added to each such operation here.
 */
function addIdempotencyKeys(document: { paths?: Record<string, Record<string, OpenApiOperation>> }): void {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    if (!path.startsWith("/v1/account/")) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (method === "get") continue;
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: IDEMPOTENCY_HEADER_NAME,
          in: "header",
          required: true,
          description:
            "A unique value per logical operation, reused only to retry that operation after an unknown outcome: the retry replays the first answer (docs/api/idempotency.md#idempotency).",
          schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
        },
      ];
    }
  }
}

/**
 * The named schemas come in two forms, what a request takes (`<name>Input`) and what an answer
 * holds (`<name>`); the document keeps only the ones an operation refers to, and a schema used
 * only as a request keeps its plain name (`CreateApiKeyRequest`, not `CreateApiKeyRequestInput`).
 */
function keepReferencedSchemas(document: OpenApiDocumentObject): OpenApiDocumentObject {
  const schemas = document.components?.schemas ?? {};
  const prefix = "#/components/schemas/";
  const referenced = new Set<string>();
  const visit = (value: unknown): void => {
    const text = JSON.stringify(value);
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      if (referenced.has(name!)) continue;
      referenced.add(name!);
      visit(schemas[name!]);
    }
  };
  visit(document.paths);
  const renamed = new Map<string, string>();
  for (const name of referenced) {
    const plain = name.endsWith("Input") ? name.slice(0, -"Input".length) : undefined;
    if (plain !== undefined && !referenced.has(plain) && plain in schemas) renamed.set(name, plain);
  }
  const kept = Object.fromEntries([...referenced].sort().map((name) => [renamed.get(name) ?? name, schemas[name]]));
  const text = JSON.stringify({ ...document, components: { ...document.components, schemas: kept } });
  return JSON.parse(text.replace(/"#\/components\/schemas\/([^"]+)"/g, (whole, name: string) => (renamed.has(name) ? `"${prefix}${renamed.get(name)}"` : whole)));
}

interface OpenApiDocumentObject {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>;
}

interface OpenApiOperation {
  parameters?: Record<string, unknown>[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/**
 * Collects every route registered after it into an OpenAPI 3.1 document and serves it at
 * `GET /openapi.json` (no credential: it holds nothing a client could not read in docs/). Call
 * it before registering the routes: the document sees only routes added after it.
 */
export function registerOpenApi(app: FastifyInstance, version: string): void {
  app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "gateway-keys",
        version,
        description: "The gateway's account API (keys as code), model API and operational endpoints. docs/api/README.md documents the wire and docs/decisions.md every decision.",
      },
      tags: [
        { name: "account", description: "Keys, usage and logs of an owner, with a provisioning key." },
        { name: "model", description: "Model requests, with an API key." },
        { name: "operations", description: "Health, readiness and this document; no credential." },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: "http", scheme: "bearer", description: "A regular API key (gwk_…); Anthropic clients may send it as x-api-key." },
          provisioningKey: { type: "http", scheme: "bearer", description: "A provisioning key (gwp_…) of the owner." },
        },
      },
    },
    transform,
    transformObject: (documentObject) => {
      if (!("openapiObject" in documentObject)) return documentObject.swaggerObject;
      const document = addNamedSchemas(documentObject as Parameters<typeof addNamedSchemas>[0]) as OpenApiDocumentObject;
      addEventStreams(document);
      addIdempotencyKeys(document);
      return keepReferencedSchemas(document) as typeof documentObject.openapiObject;
    },
  });
  // In a plugin of its own, so it is added after the swagger plugin has loaded and sees it too.
  app.register(async (scope) => {
    scope.get(
      "/openapi.json",
      {
        schema: { querystring: NoQuery },
        config: { openapi: { responses: { 200: { description: "This document.", content: { "application/json": OpenApiDocument } } } } },
      },
      async () => app.swagger(),
    );
  });
}

/** Enough of an OpenAPI document's shape to describe `GET /openapi.json` itself. */
const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });
