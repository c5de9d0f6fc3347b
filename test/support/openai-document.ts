/**
 * OpenAI's own OpenAPI document (`../shared/openai-openapi/openapi.yaml`, unmodified, MIT), as the
 * yardstick for every OpenAI-wire answer the gateway builds: clients generated from it in other
 * languages deserialize against exactly these schemas. Validated with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1), which also honours the OpenAPI 3.0 `nullable` keyword the document
 * still carries — so a schema using it is checked, not skipped (openai-conformance.test.ts proves it).
 *
 * Documented deviations (docs/api/models.md#openais-document-and-the-gateway) are kept out explicitly,
 * here and nowhere else.
 */
import { readFileSync } from "node:fs";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { parse as parseYaml } from "yaml";
import { OPENAI_DOCUMENT } from "./needs";


/**
 * The document's OpenAPI 3.0 `nullable: true` in JSON Schema 2020-12 terms: `null` added to the
 * schema's `type` (and `enum`), or, beside a `$ref` or a combinator with no `type`, the schema
 * wrapped as `anyOf: [schema, { type: "null" }]`. Ajv would otherwise refuse `nullable` without
 * `type`, and a validator that ignored it would wrongly refuse nulls.
 */
function nullableAsNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAsNull);
  if (node === null || typeof node !== "object") return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const schema: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableAsNull(value)]));
  if (nullable !== true) return schema;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return {
      ...schema,
      type: types.includes("null") ? types : [...types, "null"],
      ...(Array.isArray(schema.enum) && !schema.enum.includes(null) && { enum: [...schema.enum, null] }),
    };
  }
  return { anyOf: [schema, { type: "null" }] };
}

let ajv: Ajv2020 | undefined;
let responseEvents: Map<string, string> | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorOf(schemaName: string): ValidateFunction {
  let validate = compiled.get(schemaName);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
      addFormats(ajv);
      // The document's own format for timestamps: whole seconds since the epoch.
      ajv.addFormat("unixtime", { type: "number", validate: (value: number) => Number.isInteger(value) });
      const document = nullableAsNull(parseYaml(readFileSync(OPENAI_DOCUMENT, "utf8"), { maxAliasCount: -1 })) as OpenApiDocument;
      ajv.addSchema(document, "openai");
      responseEvents = responseEventSchemas(document);
    }
    validate = ajv.compile({ $ref: `openai#/components/schemas/${schemaName}` });
    compiled.set(schemaName, validate);
  }
  return validate;
}

interface OpenApiDocument {
  components: { schemas: Record<string, { anyOf?: { $ref: string }[]; properties?: { type?: { enum?: string[] } } }> };
}

/** Each Responses stream event type and the schema that describes it (the members of `ResponseStreamEvent`). */
function responseEventSchemas(document: OpenApiDocument): Map<string, string> {
  const schemas = document.components.schemas;
  const byType = new Map<string, string>();
  for (const { $ref } of schemas.ResponseStreamEvent?.anyOf ?? []) {
    const name = $ref.split("/").pop()!;
    for (const type of schemas[name]?.properties?.type?.enum ?? []) byType.set(type, name);
  }
  return byType;
}

/**
 * The document's complaints about one Responses stream event, checked against the schema of its
 * own `type` (the union's other members would only add noise); an event type the document does
 * not know is itself a complaint.
 */
export function responseEventErrors(event: { type?: unknown }): string[] {
  validatorOf("ResponseStreamEvent");
  const schema = responseEvents!.get(String(event.type));
  return schema === undefined ? [`no event of type ${JSON.stringify(event.type)} in the document`] : conformanceErrors(schema, event).map((error) => `${schema}: ${error}`);
}

/** The document's complaints about `value` as `schemaName` (empty when it conforms). */
export function conformanceErrors(schemaName: string, value: unknown): string[] {
  const validate = validatorOf(schemaName);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message ?? ""} ${JSON.stringify(error.params)}`);
}

/**
 * An embeddings answer with the documented deviation taken out: the document types every
 * `embedding` as an array of numbers, but with `encoding_format: "base64"` OpenAI (and the
 * gateway, and the official SDK that decodes it) carries it as a base64 string.
 */
export function withoutBase64Embeddings(answer: { data: { embedding: unknown }[] }): unknown {
  return { ...answer, data: answer.data.map((item) => (typeof item.embedding === "string" ? { ...item, embedding: [] } : item)) };
}
