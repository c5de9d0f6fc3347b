import { readFileSync } from "node:fs";
import { z } from "zod";
import { describeIssues, fieldIssues, LimitUnits } from "@gateway-keys/contract";
import { parse as parseYaml } from "yaml";
import { familiesOf, ProviderConfig } from "../upstream/kinds";
import type { CooldownPolicy } from "../metering/route-health-records";

export { ProviderConfig } from "../upstream/kinds";

/**
 * The gateway's upstream configuration (`gateway serve --config FILE`, YAML or JSON): which
 * providers it forwards to (each of a kind: upstream/kinds/) and which public models route where.
 * A provider's credentials are never in the file: the file names where they are.
 */
const Price = z.union([LimitUnits, z.literal("0")], { error: 'expected a decimal string of credits such as "2.5"' });

const PerMinute = z.number().int().min(1).max(1_000_000_000_000);

export const ModelRouteConfig = z.strictObject({
  provider: z.string().min(1),
  /** The model id at the provider. */
  model: z.string().min(1).max(256),
  /** Its share of the model's traffic under `routing: weighted` (docs/operators/routing.md#strategies). */
  weight: z.number({ error: "expected a positive number" }).positive({ error: "expected a positive number" }).max(1_000_000).optional(),
  /** The deployment's own quota (its cloud's): counted across every process, routed around when full (docs/operators/routing.md#quotas). */
  requestsPerMinute: PerMinute.optional(),
  tokensPerMinute: PerMinute.optional(),
});

/** How a model spreads its requests over its routes (docs/operators/routing.md#strategies). */
export const RoutingStrategyName = z.enum(["ordered", "weighted", "least-busy", "lowest-latency"], {
  error: 'expected "ordered", "weighted", "least-busy" or "lowest-latency"',
});
export type RoutingStrategyName = z.infer<typeof RoutingStrategyName>;

/**
 * When a route is skipped after failures (docs/operators/routing.md#cooldowns): `failures` route
 * failures within `windowSeconds` cool it for `seconds` (or the provider's `Retry-After`).
 */
export const CooldownConfig = z.strictObject({
  failures: z.number().int().min(1).max(1000).default(3),
  windowSeconds: z.number().positive().max(3600).default(30),
  seconds: z.number().positive().max(3600).default(30),
});
export type CooldownConfig = z.infer<typeof CooldownConfig>;

const modelFields = {
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, { error: "expected a model id: letters, digits and . _ : / -" }),
  description: z.string().max(512).default(""),
  /** Tried in the strategy's order; the next one only when the previous failed before the client got a byte. */
  routes: z.array(ModelRouteConfig).min(1, { error: "must name at least one route" }),
  /** `ordered` when not given. */
  routing: RoutingStrategyName.optional(),
};

/** Token prices: chat models charge input and output, embeddings and moderation models input only. */
const TokenPrices = z.strictObject({ inputUnitsPerMillionTokens: Price, outputUnitsPerMillionTokens: Price });
const InputTokenPrice = z.strictObject({ inputUnitsPerMillionTokens: Price });

/** One public model, with the price unit its family needs (docs/operators/upstream.md#upstream-providers). */
export const ModelConfig = z.discriminatedUnion(
  "family",
  [
    z.strictObject({
      ...modelFields,
      family: z.literal("chat"),
      pricing: TokenPrices,
      maxOutputTokens: z.number().int().min(1).max(1_000_000),
      /**
       * The most input tokens a route's model counts for one image: what a spend reservation holds
       * for each (docs/api/policies.md#how-a-reservation-bounds-each-familys-charge). Without it,
       * IMAGE_INPUT_TOKENS: above what Anthropic's models and OpenAI's gpt-4o count; a model that
       * counts more (gpt-4o-mini: up to 48,169) needs its own.
       */
      inputTokensPerImage: z.number().int().min(1).max(1_000_000).optional(),
      /**
       * A field a route's provider cannot carry (lossy, docs/operators/upstream.md#translation-by-meaning):
       * `refuse` it with a 400 naming it (the default), or `drop` it and name it in the
       * `x-gateway-dropped-fields` header.
       */
      unsupportedFields: z.enum(["refuse", "drop"], { error: 'expected "refuse" or "drop"' }).default("refuse"),
    }),
    z.strictObject({ ...modelFields, family: z.literal("embeddings"), pricing: InputTokenPrice }),
    z.strictObject({ ...modelFields, family: z.literal("moderation"), pricing: InputTokenPrice }),
    z.strictObject({
      ...modelFields,
      family: z.literal("images"),
      /** Per image, by size (`1024x1024`, …); a request for a size not listed is refused naming the sizes that are. */
      pricing: z.strictObject({ unitsPerImage: z.record(z.string().regex(/^\d+x\d+$|^auto$/, { error: "expected a size such as 1024x1024, or auto" }), Price) }),
    }),
    z.strictObject({ ...modelFields, family: z.literal("speech"), pricing: z.strictObject({ unitsPerMillionCharacters: Price }) }),
    z.strictObject({ ...modelFields, family: z.literal("transcription"), pricing: z.strictObject({ unitsPerMinute: Price }) }),
  ],
  { error: 'expected family "chat", "embeddings", "moderation", "images", "speech" or "transcription"' },
);
export type ModelConfig = z.infer<typeof ModelConfig>;

export const GatewayConfig = z
  .strictObject({
    providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/), ProviderConfig),
    models: z.array(ModelConfig),
    /** Cooldowns of failing routes (the defaults when not given); `false` never skips a route for its past failures. */
    cooldown: z.union([CooldownConfig, z.literal(false)]).optional(),
  })
  .superRefine((config, ctx) => {
    config.models.forEach((model, index) => {
      model.routes.forEach((route, routeIndex) => {
        const provider = config.providers[route.provider];
        const path = ["models", index, "routes", routeIndex, "provider"];
        if (!provider) ctx.addIssue({ code: "custom", path, message: `no provider named ${JSON.stringify(route.provider)}` });
        else if (!familiesOf(provider).has(model.family)) {
          const families = [...familiesOf(provider)].join(", ");
          ctx.addIssue({ code: "custom", path, message: `${JSON.stringify(route.provider)} (kind ${provider.kind}) does not forward ${model.family} models; it forwards ${families}` });
        }
      });
    });
    config.models.forEach((model, index) => {
      const seen = model.routes.map((route) => `${route.provider}/${route.model}`);
      seen.forEach((route, routeIndex) => {
        if (seen.indexOf(route) !== routeIndex) ctx.addIssue({ code: "custom", path: ["models", index, "routes", routeIndex], message: `the route ${JSON.stringify(route)} is listed twice` });
      });
    });
    const ids = config.models.map((model) => model.id);
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index) ctx.addIssue({ code: "custom", path: ["models", index, "id"], message: `model ${JSON.stringify(id)} is declared twice` });
    });
  });
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** A config's cooldowns as the router takes them (ms); null when turned off. */
export function cooldownPolicyOf(config: GatewayConfig): CooldownPolicy | null {
  if (config.cooldown === false) return null;
  const { failures, windowSeconds, seconds } = config.cooldown ?? CooldownConfig.parse({});
  return { failures, windowMs: windowSeconds * 1000, cooldownMs: seconds * 1000 };
}

/** Reads and checks a config file; the error names the file and every offending path. */
export function loadGatewayConfig(path: string): GatewayConfig {
  let raw: unknown;
  try {
    const text = readFileSync(path, "utf8");
    raw = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`cannot read the config file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = GatewayConfig.safeParse(raw);
  if (!parsed.success) throw new Error(`the config file ${path} is not valid: ${describeIssues(fieldIssues(parsed.error))}`);
  return parsed.data;
}
