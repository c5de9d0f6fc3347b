import { formatUnits, parseUnits, type Model, type ModelFamily } from "@gateway-keys/contract";
import type { TextEngine, TextUsage } from "../inference/text";
import { BUILT_IN_TEXT_MODELS } from "./builtin/text-models";

/** A model's price: credits (as micro-units) per million input and per million output tokens. */
export interface ModelPricing {
  inputPerMillionMicros: bigint;
  outputPerMillionMicros: bigint;
}

interface CatalogModelBase {
  /** The public id clients send as `model`. */
  id: string;
  description: string;
  /** Who serves it: `gateway` for the built-in models, else the provider's name. */
  ownedBy: string;
  pricing: ModelPricing;
  /** The most tokens one request may generate (and the bound a spend reservation assumes). */
  maxOutputTokens: number;
}

/** A model the gateway serves, with the engine that runs it. */
export type CatalogModel = CatalogModelBase & { family: "chat"; engine: TextEngine };

const MICROS_PER_MILLION = 1_000_000n;

/** What `usage` costs at the model's price, rounded up to a whole micro-unit. */
export function costOf(pricing: ModelPricing, usage: TextUsage): bigint {
  const scaled = BigInt(usage.inputTokens) * pricing.inputPerMillionMicros + BigInt(usage.outputTokens) * pricing.outputPerMillionMicros;
  return (scaled + MICROS_PER_MILLION - 1n) / MICROS_PER_MILLION;
}

const builtInPrices: Record<string, [input: string, output: string]> = {
  "echo-1": ["1000", "2000"],
  "reverse-1": ["2000", "4000"],
  "count-1": ["500", "1000"],
};

/** The models served when no upstream is configured: local, deterministic, free of network. */
export const BUILT_IN_MODELS: readonly CatalogModel[] = BUILT_IN_TEXT_MODELS.map(({ id, description, engine }) => ({
  id,
  description,
  ownedBy: "gateway",
  family: "chat",
  engine,
  pricing: { inputPerMillionMicros: parseUnits(builtInPrices[id]![0]), outputPerMillionMicros: parseUnits(builtInPrices[id]![1]) },
  maxOutputTokens: 4096,
}));

/** The models a gateway serves, by id. */
export class ModelCatalog {
  readonly #byId: Map<string, CatalogModel>;
  readonly #listedAt: number;

  constructor(models: readonly CatalogModel[] = BUILT_IN_MODELS, listedAt = Math.floor(Date.now() / 1000)) {
    this.#byId = new Map(models.map((model) => [model.id, model]));
    this.#listedAt = listedAt;
  }

  get(id: string): CatalogModel | undefined {
    return this.#byId.get(id);
  }

  /** Every model of `family` (all when left out), as `GET /v1/models` lists them. */
  list(family?: ModelFamily): Model[] {
    return [...this.#byId.values()].filter((model) => family === undefined || model.family === family).map((model) => this.#toWire(model));
  }

  #toWire(model: CatalogModel): Model {
    return {
      object: "model",
      id: model.id,
      created: this.#listedAt,
      owned_by: model.ownedBy,
      family: model.family,
      description: model.description,
      pricing: {
        input_units_per_million_tokens: formatUnits(model.pricing.inputPerMillionMicros),
        output_units_per_million_tokens: formatUnits(model.pricing.outputPerMillionMicros),
      },
      max_output_tokens: model.maxOutputTokens,
    };
  }
}
