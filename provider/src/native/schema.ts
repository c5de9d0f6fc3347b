import { z } from "zod";
import { ApiKeyInputs, SECRET_PROPERTIES } from "../runtime/shapes";
import { TEAM_SECRET_PROPERTIES, TeamInputs } from "../runtime/team/shapes";
import { WEBHOOK_SECRET_PROPERTIES, WebhookInputs } from "../runtime/webhook/shapes";
import { ApiKeyOutputs, TeamOutputs, WebhookOutputs } from "./outputs";
import { TEAM_DESCRIPTIONS } from "./team-descriptions";
import { WEBHOOK_DESCRIPTIONS } from "./webhook-descriptions";

/** The Pulumi package name: config keys are `gatewaykeys:*`, the plugin `pulumi-resource-gatewaykeys`. */
export const PACKAGE_NAME = "gatewaykeys";
/** The type token of the native key resource. */
export const NATIVE_API_KEY_TYPE = `${PACKAGE_NAME}:index:ApiKey`;
/** The type token of the native webhook endpoint resource. */
export const NATIVE_WEBHOOK_TYPE = `${PACKAGE_NAME}:index:Webhook`;
/** The type token of the native team resource. */
export const NATIVE_TEAM_TYPE = `${PACKAGE_NAME}:index:Team`;

/** The program's inputs: without those the dynamic `ApiKey` class sets itself, which the plugin gets from the engine (the URN) or computes. */
const DeclaredInputs = ApiKeyInputs.omit({ clientReference: true, planning: true, rotation: true, expiryWarningSeconds: true, rotateAfterSeconds: true });

/** A webhook's inputs as a program declares them: the URN comes from the engine, and `pulumi import` adopts. */
const DeclaredWebhookInputs = WebhookInputs.omit({ clientReference: true, adoptWebhookId: true });

/** A team's inputs as a program declares them: the URN comes from the engine, and `pulumi import` adopts. */
const DeclaredTeamInputs = TeamInputs.omit({ clientReference: true, adoptTeamId: true });

/** Inputs the program may leave out although the contract requires them: the plugin fills them in `check`. */
const DEFAULTED_BY_PLUGIN = new Set(["name"]);

/** Names of the object types, by the property that holds them. */
const OBJECT_TYPE_NAMES: Record<string, string> = {
  spendPolicy: "SpendPolicy",
  loggingPolicy: "LoggingPolicy",
  modelPolicy: "ModelPolicy",
  rateLimitPolicy: "RateLimitPolicy",
  connection: "Connection",
  rotation: "RotationRecord",
  currentSecret: "SecretUse",
  previousSecret: "PreviousSecretUse",
  clients: "SecretClient",
  windows: "SpendWindow",
  spendWindows: "SpendWindowState",
};

/** What a property of an object type means where the shared prose (of the key's own property) does not fit. */
const TYPE_DESCRIPTIONS: Record<string, Record<string, string>> = {
  SecretUse: { hint: "Prefix and last four characters of the secret." },
  SpendWindowState: {
    limitUnits: "The window's limit, in credits.",
    spentUnits: "What was spent in the window, in credits.",
    startedAt: "When the window began (ISO 8601).",
    resetsAt: "When the window starts again (ISO 8601); absent for a lifetime cap.",
  },
  PreviousSecretUse: {
    hint: "Prefix and last four characters of the replaced secret.",
    expiresAt: "The end of its grace (ISO 8601): it never authenticates at or after this instant.",
  },
};

/**
 * What each property means. Types, bounds, enums, defaults, required and secret markers all come
 * from the contract's zod schemas; only this prose is written here.
 */
const DESCRIPTIONS: Record<string, string> = {
  name: "Human-readable label. Default: the resource name.",
  state: "Whether the key is usable. A key is revoked only by deleting the resource.",
  spendPolicy: "Spending cap: one window (limitUnits, resetPeriod) or several (windows). Left out, the key has no cap.",
  limitUnits: "Maximum spend, in credits, as a decimal string (\"100\", \"12.5\"). Left out with windows.",
  windows:
    "Several windows enforced together instead of limitUnits and resetPeriod: 1 to 4 of distinct resetPeriod, e.g. a daily and a monthly cap. " +
    "One window reads back in the single form; several in the order never, daily, weekly, monthly.",
  teamId: "The team the key belongs to (team_...): its spend, rate limits and model ceiling hold for the key too. Changing it moves the key in place. Left out, no team.",
  currency: "The credit unit.",
  resetPeriod: "When the limit starts again: never (a lifetime cap), daily (00:00 UTC), weekly (00:00 UTC on Monday) or monthly (00:00 UTC on the 1st).",
  rateLimitPolicy: "Rate limits across every gateway process; 429 with Retry-After beyond them. Left out, none.",
  requestsPerMinute: "Requests per minute (a bucket holding a minute's worth, refilled continuously).",
  tokensPerMinute: "Tokens per minute, counted as the spend policy counts them.",
  maxConcurrentRequests: "Requests in flight at once.",
  expiresAt: "When the key stops authenticating (ISO 8601 with a zone, stored in UTC; in the future when set). Changing it is an in-place update.",
  expired: "Whether expiresAt has passed, as of the last create, update or refresh.",
  labels: "Labels to find, group and bill keys by: up to 32 names (lowercase, digits, ._/-) to strings of up to 256 characters.",
  loggingPolicy: "What the gateway stores about requests made with the key.",
  storeRequest: "Store request content.",
  storeResponse: "Store response content.",
  retentionDays: "Days to keep request logs.",
  modelPolicy: "Which models the key may call.",
  mode: "`all` (every model) or `allowList` (only `modelIds`).",
  modelIds: "Model ids: empty with `all`, 1 to 100 distinct ids with `allowList`.",
  budgetAlertThresholds:
    "Fractions of spendPolicy.limitUnits at which the gateway sends a key.budget_threshold webhook event, once per spend window each: " +
    "greater than 0, at most 1, ascending, up to 10, e.g. [0.5, 0.8, 1]. Default none.",
  expiryWarning: "How long before expiresAt the gateway sends a key.expiring webhook event: `7d`, `12h`, `90m` (1m to 365d). Default none.",
  expiryWarningSeconds: "Seconds before expiresAt that the gateway sends key.expiring, set from expiryWarning.",
  rotateAfterSeconds: "Age of the secret, in seconds, at which the gateway sends key.rotation_due, set from rotateAfter.",
  rotationTrigger: "Any value; changing it rotates the secret in place (the keyId stays).",
  rotateAfter: "Rotate the secret once it is older than this: `30d`, `12h`, `90m` (1h to 3650d). The gateway sends key.rotation_due at that age.",
  rotationGracePeriod: "How long a replaced secret keeps working after a rotation (`1h`, up to `7d`); needs the gateway's rotation_grace.",
  retireWhenIdle:
    "With rotationGracePeriod: the replaced secret stops as soon as it has gone unused this long after a rotation (`15m`, `30s`, 5s to 7d; " +
    "never later than the grace's end). Sent as retireWhenIdleSeconds; needs the gateway's secret_use.",
  inUseWarning:
    "With rotationGracePeriod: how long before the grace ends the gateway sends key.previous_secret_in_use if the old secret is still in use " +
    "(`15m`, shorter than the grace). Default: when a quarter of the grace is left.",
  currentSecret:
    "How the current secret has been used, as of the last create, update or refresh (read-only; never a change to apply). " +
    "Absent from a gateway without the secret_use extension.",
  previousSecret:
    "The secret the last rotation replaced, when that rotation had a grace period: its grace, retirement and use since the rotation " +
    "(read-only). Clients still listed with a recent lastSeenAt have not moved to the new secret.",
  lastUsedAt: "When a request last authenticated with this secret (ISO 8601), if ever.",
  requestsSinceRotation: "Requests it authenticated since the key's last rotation (since its creation before any).",
  clients: "The most recently seen distinct clients (up to 20), most recent first.",
  userAgent: "The User-Agent the client sent (cut to 200 characters), if any.",
  address: "The client's source address, as the gateway's trusted proxy reports it, if known.",
  firstSeenAt: "When this client first presented the secret (ISO 8601).",
  lastSeenAt: "When this client last presented the secret (ISO 8601).",
  requests: "Requests this client made with the secret.",
  retireWhenIdleSeconds: "The rotation's retireWhenIdle in seconds, if it had one.",
  inUseWarningAt: "When key.previous_secret_in_use is due if the secret is still in use then (ISO 8601).",
  retiredAt: "When it stopped authenticating (ISO 8601), if it has.",
  retiredReason: "Why it stopped: idle, expired, revoked or rotated.",
  connection: "The gateway and owner of this key; left out, the provider configuration applies. A secret.",
  baseUrl: "Base URL of the gateway, e.g. http://127.0.0.1:8787.",
  provisioningKey: "Provisioning key of the owner (gwp_...). A secret.",
  adoptKeyId: "Adopt this existing key (key_...) instead of creating one; its live name, state and policies must match.",
  keyId: "The key's id on the gateway (key_...); also the resource id.",
  version: "The key's version; goes up on every change, rotation and revoke.",
  hint: "Prefix and last four characters of the key's current secret, safe to show.",
  ownerId: "The owner the key belongs to (fixed by the provisioning key).",
  createdAt: "When the key was created (ISO 8601).",
  updatedAt: "When the key last changed (ISO 8601).",
  rotatedAt: "When the secret was last rotated (ISO 8601), if ever.",
  previousSecretExpiresAt: "Until when the secret the last rotation replaced keeps working (ISO 8601), if it had a grace period.",
  secret: "The secret this stack issued (a secret). Absent for an imported or adopted key until the stack rotates it.",
  secretKnown: "Whether `secret` is the key's current secret: false for an imported key, or one rotated outside this stack.",
  provisioningKeyHint: "Hint of the provisioning key the key was last managed with.",
  rotation: "With rotateAfter: when the stack issued the current secret and why.",
  issuedAt: "When the secret was issued (ISO 8601).",
  reason: "Why it was issued: created, rotationTrigger changed, scheduled...",
  clientReference: "The resource's URN, which the key carries on the gateway so a create interrupted by a crash is found again.",
  requestTimeout: "Time limit of one gateway call, retries included, in whole seconds from 1 to 300. Default 30.",
};

/** A Pulumi schema property or type reference. */
type PulumiType = Record<string, unknown>;
type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  additionalProperties?: JsonSchema | boolean;
};

/** Turns JSON Schema (from `z.toJSONSchema`) into Pulumi schema types, collecting named object types. */
class TypeCollector {
  readonly types: Record<string, unknown> = {};

  /** A property's type and description: its resource's own prose for `name` (`descriptions`) first, then the shared one. */
  property(name: string, node: JsonSchema, secret = false, descriptions: Record<string, string> = {}): PulumiType {
    const type = this.#typeOf(name, node);
    const description = [descriptions[name] ?? DESCRIPTIONS[name], allowedValues(node)].filter(Boolean).join(" ");
    return { ...type, ...(description ? { description } : {}), ...(secret ? { secret: true } : {}) };
  }

  #typeOf(name: string, node: JsonSchema): PulumiType {
    // `X | null` (a nullable field): Pulumi properties are optional anyway.
    if (Array.isArray(node.type)) {
      const types = node.type.filter((type) => type !== "null");
      return types.length === 1 ? this.#typeOf(name, { ...node, type: types[0] }) : { $ref: "pulumi.json#/Any" };
    }
    const options = node.anyOf?.filter((option) => option.type !== "null");
    if (options?.length === 1) return this.#typeOf(name, options[0]!);
    // A value read loosely (a known enum, or any string a newer gateway sends): a string.
    if (options?.length && options.every((option) => option.type === "string")) return { type: "string" };
    // A record read in either of its forms (a spend policy's single window or its windows): one
    // object type with every property of both, none required — the type a program writes either form in.
    if (options && options.length > 1 && options.every((option) => option.type === "object" && option.properties)) {
      const properties = Object.assign({}, ...options.map((option) => option.properties)) as Record<string, JsonSchema>;
      return this.#typeOf(name, { type: "object", properties });
    }
    if (node.type === undefined || options) return { $ref: "pulumi.json#/Any" };
    if (node.type === "array") return { type: "array", items: this.#typeOf(name, node.items ?? {}) };
    // A map (labels): string keys, each value of one type.
    if (node.type === "object" && node.properties === undefined && typeof node.additionalProperties === "object") {
      return { type: "object", additionalProperties: this.#typeOf(name, node.additionalProperties) };
    }
    if (node.type === "object") return { $ref: `#/types/${this.#objectType(name, node)}` };
    return { type: node.type };
  }

  /** Registers the object type of property `name` (the first shape seen wins: the input's). */
  #objectType(name: string, node: JsonSchema): string {
    const typeName = OBJECT_TYPE_NAMES[name];
    if (!typeName) throw new Error(`schema: no type name for the object property "${name}"; add it to OBJECT_TYPE_NAMES`);
    const token = `${PACKAGE_NAME}:index:${typeName}`;
    if (!this.types[token]) {
      const properties = Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([field, inner]) => [
          field,
          this.property(field, inner, field === "provisioningKey", TYPE_DESCRIPTIONS[typeName]),
        ]),
      );
      // A nullable field is always present, but may be null: not required in Pulumi's sense.
      const required = (node.required ?? []).filter((field) => node.properties?.[field]?.default === undefined && !nullable(node.properties?.[field]));
      this.types[token] = { type: "object", properties, ...(required.length ? { required } : {}) };
    }
    return token;
  }
}

/** Whether a JSON Schema node allows null. */
function nullable(node: JsonSchema | undefined): boolean {
  return node?.anyOf?.some((option) => option.type === "null") === true || (Array.isArray(node?.type) && node.type.includes("null"));
}

/** "Allowed: ...; default ..." from the contract's enums, bounds and defaults. */
function allowedValues(node: JsonSchema): string {
  const parts: string[] = [];
  if (node.enum) parts.push(`One of ${node.enum.map((value) => JSON.stringify(value)).join(", ")}.`);
  // zod's `.int()` alone bounds a number by the safe integers: no bound a reader needs told.
  if (node.minimum !== undefined && node.maximum !== undefined && node.maximum !== Number.MAX_SAFE_INTEGER) {
    parts.push(`From ${node.minimum} to ${node.maximum}.`);
  }
  if (node.default !== undefined && typeof node.default !== "object") parts.push(`Default ${JSON.stringify(node.default)}.`);
  return parts.join(" ");
}

const jsonSchemaOf = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;

/** What a resource type's schema is made of: zod schemas of its inputs and outputs, and its prose. */
export interface ResourceSpec {
  description: string;
  /** The program's inputs. */
  inputs: z.ZodType;
  /** The stored outputs. */
  outputs: z.ZodType;
  /** Properties marked secret in inputs and outputs. */
  secret: readonly string[];
  /** Inputs the program may leave out although the schema requires them: the plugin fills them in `check`. */
  defaulted?: ReadonlySet<string>;
  /** What a property means for this resource where the shared prose (of a key) does not fit. */
  descriptions?: Record<string, string>;
}

/** A resource's entry of the package schema, its object types registered with `collector`. */
function resourceSchema(collector: TypeCollector, spec: ResourceSpec): Record<string, unknown> {
  const secret = new Set<string>(spec.secret);
  const inputs = jsonSchemaOf(spec.inputs, "input");
  const inputProperties = Object.fromEntries(
    Object.entries(inputs.properties ?? {}).map(([name, node]) => [name, collector.property(name, node, secret.has(name), spec.descriptions)]),
  );
  const outputs = jsonSchemaOf(spec.outputs, "output");
  const properties = Object.fromEntries(
    Object.entries(outputs.properties ?? {}).map(([name, node]) => [name, collector.property(name, node, secret.has(name), spec.descriptions)]),
  );
  return {
    description: spec.description,
    inputProperties,
    requiredInputs: (inputs.required ?? []).filter((name) => !spec.defaulted?.has(name)),
    properties,
    // A nullable field (rotatedAt...) is always present, but may be null: not required in Pulumi's sense.
    required: (outputs.required ?? []).filter((name) => !nullable(outputs.properties?.[name])),
  };
}

/** The key resource's schema. */
const API_KEY_SPEC: ResourceSpec = {
  description:
    "A regular API key of the gateway. Name, state and policy changes are one in-place PATCH; a rotation " +
    "(rotationTrigger changed, or rotateAfter reached) is an in-place rotate of the secret; delete revokes.",
  inputs: DeclaredInputs,
  outputs: ApiKeyOutputs,
  secret: SECRET_PROPERTIES,
  defaulted: DEFAULTED_BY_PLUGIN,
};

/** The webhook endpoint resource's schema. */
const WEBHOOK_SPEC: ResourceSpec = {
  description:
    "A webhook endpoint of the gateway: events (key alerts, audit actions) POSTed to url, signed as Standard Webhooks. " +
    "URL, events, selector and enabled change in place (one PATCH); a new rotationTrigger rotates the signing secret in place; delete removes it.",
  inputs: DeclaredWebhookInputs,
  outputs: WebhookOutputs,
  secret: WEBHOOK_SECRET_PROPERTIES,
  descriptions: WEBHOOK_DESCRIPTIONS,
};

/** The team resource's schema. */
const TEAM_SPEC: ResourceSpec = {
  description:
    "A team of the gateway: a spend policy (one window or several), rate limits and a model ceiling shared by every key whose teamId " +
    "names it. Every change, the name's too, is one in-place PATCH; delete is refused by the gateway while keys belong to the team.",
  inputs: DeclaredTeamInputs,
  outputs: TeamOutputs,
  secret: TEAM_SECRET_PROPERTIES,
  defaulted: DEFAULTED_BY_PLUGIN,
  descriptions: TEAM_DESCRIPTIONS,
};

/**
 * The Pulumi package schema of `gatewaykeys`, generated from the contract's zod schemas (through
 * the runtime's input schemas and {@link ApiKeyOutputs}). The plugin serves it from GetSchema;
 * `npm run schema` writes it to provider/schema.json for `pulumi package gen-sdk`.
 */
export function packageSchema(version: string): Record<string, unknown> {
  const collector = new TypeCollector();
  const resources = {
    [NATIVE_API_KEY_TYPE]: resourceSchema(collector, API_KEY_SPEC),
    [NATIVE_WEBHOOK_TYPE]: resourceSchema(collector, WEBHOOK_SPEC),
    [NATIVE_TEAM_TYPE]: resourceSchema(collector, TEAM_SPEC),
  };

  const config = {
    baseUrl: { type: "string", description: `${DESCRIPTIONS.baseUrl} Falls back to GATEWAY_BASE_URL.` },
    provisioningKey: { type: "string", secret: true, description: `${DESCRIPTIONS.provisioningKey} Falls back to GATEWAY_PROVISIONING_KEY.` },
    requestTimeout: { type: "integer", description: `${DESCRIPTIONS.requestTimeout} Falls back to GATEWAY_REQUEST_TIMEOUT.` },
  };

  return {
    name: PACKAGE_NAME,
    displayName: "Gateway keys",
    version,
    description: "Model-gateway API keys as code: create, change, rotate and revoke keys of a gateway-keys gateway, its teams and its webhook endpoints.",
    license: "Apache-2.0",
    keywords: ["pulumi", "gateway", "api-keys", "category/utility"],
    config: { variables: config },
    provider: { description: "The gatewaykeys provider: which gateway, and whose provisioning key.", inputProperties: config },
    types: collector.types,
    resources,
    language: {
      nodejs: { packageName: "@gateway-keys/gatewaykeys", packageDescription: "Generated SDK of the gatewaykeys Pulumi package." },
      // respectSchemaVersion: the Go and Python SDKs ask the engine for this very plugin version (pulumi-plugin.json
      // and every resource's Version option), not whichever gatewaykeys plugin happens to be installed.
      go: { importBasePath: "example.com/gateway-keys/sdk/go/gatewaykeys", generateResourceContainerTypes: true, respectSchemaVersion: true },
      // pulumi: any 3.x Python SDK from 3.68 on (the generator's release, which scripts/setup installs).
      python: { packageName: "pulumi_gatewaykeys", respectSchemaVersion: true, pythonRequires: ">=3.9", requires: { pulumi: ">=3.68.0,<4.0.0" } },
      csharp: { rootNamespace: "GatewayKeys" },
      java: { basePackage: "com.gatewaykeys" },
    },
  };
}

/** The schema as the plugin serves it and provider/schema.json holds it. */
export function packageSchemaJson(version: string): string {
  return `${JSON.stringify(packageSchema(version), null, 2)}\n`;
}
