import { parseUnits } from "@gateway-keys/contract";
import { Pool } from "undici";
import type { CatalogModel, ProviderRoute } from "./catalog";
import type { TokenPricing } from "../metering/pricing";
import type { GatewayMetrics } from "../ops/metrics";
import type { GatewayConfig } from "./upstream-config";
import type { UpstreamProvider } from "../upstream/send";
import { openProvider, type OpenedProvider } from "../upstream/kinds";
import { PROVIDER_TEXT_WIRES } from "../inference/wires/provider-wires";
import { providerTarget } from "../inference/translation";

const tokenPricing = (input: string, output: string): TokenPricing => ({ unit: "tokens", inputPerMillionMicros: parseUnits(input), outputPerMillionMicros: parseUnits(output) });

/** The models of a config, and how to close the providers' connection pools. */
export interface UpstreamCatalog {
  models: CatalogModel[];
  close(): Promise<void>;
}

/**
 * Builds the forwarded models of a config: one pooled connection per provider, each model's routes
 * tried in order. Each provider is opened by its kind, which reads its credentials once; a missing variable is an
 * error that names it (never its value). Each attempt's latency goes to `metrics`, when given.
 */
export function upstreamCatalog(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env, metrics?: GatewayMetrics): UpstreamCatalog {
  const providers = new Map<string, UpstreamProvider>();
  const opened: OpenedProvider[] = [];
  for (const [name, provider] of Object.entries(config.providers)) {
    const open = openProvider(provider, name, env);
    opened.push(open);
    const { origin, wire, endpoint, relayPaths } = open;
    const observe: UpstreamProvider["observe"] = metrics && ((outcome, seconds) => metrics.upstreamRequest(name, outcome, seconds));
    providers.set(name, { name, kind: provider.kind, wire, endpoint, relayPaths, timeoutMs: provider.timeoutMs, pool: new Pool(origin, { connections: provider.maxConnections }), observe });
  }
  const models: CatalogModel[] = config.models.map((model) => {
    const common = { id: model.id, description: model.description, ownedBy: [...new Set(model.routes.map((route) => route.provider))].join(","), routing: model.routing };
    const routes = model.routes.map(({ provider, model, weight, requestsPerMinute, tokensPerMinute }): ProviderRoute => ({
      provider: providers.get(provider)!,
      model,
      weight,
      ...((requestsPerMinute !== undefined || tokensPerMinute !== undefined) && { quota: { requestsPerMinute, tokensPerMinute } }),
    }));
    // Media models generate no tokens the gateway bounds; the field is for chat.
    const media = { ...common, maxOutputTokens: 0, forwarded: routes };
    switch (model.family) {
      case "chat":
        return {
          ...common,
          family: "chat",
          maxOutputTokens: model.maxOutputTokens,
          ...(model.inputTokensPerImage !== undefined && { inputTokensPerImage: model.inputTokensPerImage }),
          pricing: tokenPricing(model.pricing.inputUnitsPerMillionTokens, model.pricing.outputUnitsPerMillionTokens),
          routes: routes.map((route) => {
            // Who a translated request is for, named in every refusal of a field its wire cannot carry.
            const wire = PROVIDER_TEXT_WIRES[route.provider.wire];
            const target = providerTarget(wire.name, model.id, { imageDetail: wire.imageDetail, unsupportedFields: model.unsupportedFields });
            return { kind: "provider", ...route, target };
          }),
        };
      case "embeddings":
      case "moderation":
        return { ...media, family: model.family, pricing: tokenPricing(model.pricing.inputUnitsPerMillionTokens, "0") };
      case "images":
        return {
          ...media,
          family: "images",
          pricing: { unit: "images", perImageMicros: Object.fromEntries(Object.entries(model.pricing.unitsPerImage).map(([size, units]) => [size, parseUnits(units)])) },
        };
      case "speech":
        return { ...media, family: "speech", pricing: { unit: "characters", perMillionMicros: parseUnits(model.pricing.unitsPerMillionCharacters) } };
      case "transcription":
        return { ...media, family: "transcription", pricing: { unit: "seconds", perMinuteMicros: parseUnits(model.pricing.unitsPerMinute) } };
    }
  });
  const close = async () => {
    await Promise.all([...providers.values()].map((provider) => provider.pool.close()));
    await Promise.all(opened.map((provider) => provider.close?.()));
  };
  return { models, close };
}
