import { parseUnits } from "@gateway-keys/contract";
import { Pool } from "undici";
import type { CatalogModel } from "../models/catalog";
import type { GatewayMetrics } from "../ops/metrics";
import type { GatewayConfig } from "./config";
import type { UpstreamProvider } from "./provider";
import { translatedEngine } from "./translated-engine";

/** The models of a config, and how to close the providers' connection pools. */
export interface UpstreamCatalog {
  models: CatalogModel[];
  close(): Promise<void>;
}

/**
 * Builds the forwarded models of a config: one pooled connection per provider, each model's routes
 * tried in order. Provider keys are read from the environment here, once; a missing variable is an
 * error that names it (never its value). Each attempt's latency goes to `metrics`, when given.
 */
export function upstreamCatalog(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env, metrics?: GatewayMetrics): UpstreamCatalog {
  const providers = new Map<string, UpstreamProvider>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const apiKey = env[provider.apiKeyEnv];
    if (!apiKey) throw new Error(`provider ${name}: the environment variable ${provider.apiKeyEnv} is not set; it must hold the provider's API key`);
    const origin = new URL(provider.baseUrl).origin;
    const observe: UpstreamProvider["observe"] = metrics && ((outcome, seconds) => metrics.upstreamRequest(name, outcome, seconds));
    providers.set(name, { name, wire: provider.wire, baseUrl: provider.baseUrl, apiKey, timeoutMs: provider.timeoutMs, pool: new Pool(origin, { connections: 64 }), observe });
  }
  const models: CatalogModel[] = config.models.map((model) => ({
    id: model.id,
    description: model.description,
    ownedBy: model.routes.map((route) => route.provider).join(","),
    family: "chat",
    maxOutputTokens: model.maxOutputTokens,
    pricing: {
      inputPerMillionMicros: parseUnits(model.pricing.inputUnitsPerMillionTokens),
      outputPerMillionMicros: parseUnits(model.pricing.outputUnitsPerMillionTokens),
    },
    routes: model.routes.map((route) => {
      const provider = providers.get(route.provider)!;
      const engine = translatedEngine(provider, route.model, model.id);
      return { kind: "provider", relay: { provider, model: route.model }, engine, target: engine.target };
    }),
  }));
  return { models, close: async () => void (await Promise.all([...providers.values()].map((provider) => provider.pool.close()))) };
}
