import { formatUnits, parseUnits, type Model, type ModelFamily } from "@gateway-keys/contract";
import type { MediaEngines } from "../inference/engines";
import type { MediaFamily } from "../inference/media-wire";
import type { TextEngine } from "../inference/text";
import { builtInTarget, type TranslationTarget } from "../inference/translation";
import type { UpstreamProvider } from "../upstream/send";
import type { ModelPricing, TokenPricing } from "../metering/pricing";
import type { RoutingStrategyName } from "./upstream-config";

import { toneSpeaker, wavTranscriber } from "./builtin/audio";
import { hashingEmbedder } from "./builtin/embeddings";
import { espeakSpeaker, findEspeak } from "./builtin/espeak";
import { patternImages } from "./builtin/images";
import { ruleModerator } from "./builtin/moderation";
import { BUILT_IN_TEXT_MODELS } from "./builtin/text-models";

/** A deployment's own per-minute quota (its cloud's), as a route declares it. */
export interface RouteQuota {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** One route of a forwarded model: a provider, and the model's id there. */
export interface ProviderRoute {
  provider: UpstreamProvider;
  model: string;
  /** Its share under `routing: weighted`; 1 when not given. */
  weight?: number;
  /** Its deployment's quota, when it declares one (dispatch/route-quotas.ts). */
  quota?: RouteQuota;
}

/**
 * One way a chat model is served: a built-in engine, or a provider — relayed as sent when it
 * speaks the client's wire, translated otherwise (the request decides: dispatch/choose-route.ts).
 */
export type ChatRoute = { kind: "builtin"; engine: TextEngine; target: TranslationTarget } | ({ kind: "provider"; target: TranslationTarget } & ProviderRoute);

interface CatalogModelBase {
  /** The public id clients send as `model`. */
  id: string;
  description: string;
  /** Who serves it: `gateway` for the built-in models, else the provider's name. */
  ownedBy: string;
  pricing: ModelPricing;
  /** The most tokens one request may generate (and the bound a spend reservation assumes). */
  maxOutputTokens: number;
  /** How its requests spread over its routes (dispatch/strategies.ts); `ordered` when not given. */
  routing?: RoutingStrategyName;
}

/**
 * A model of a family other than chat: run by a built-in engine, or forwarded as sent to providers
 * of its wire (its routes, tried in order). Chat models carry their routes of either kind.
 */
type Served<Family extends ModelFamily, Engine> = { family: Family } & ({ engine: Engine; forwarded?: undefined } | { engine?: undefined; forwarded: readonly ProviderRoute[] });

/** A model the gateway serves, with the engine that runs it (its kind follows the family). */
export type CatalogModel = CatalogModelBase &
  (
    | {
        family: "chat";
        /** Tried in order (dispatch/attempts.ts), the next only when the previous failed before the client got a byte. */
        routes: readonly ChatRoute[];
        /** A forwarded model's allowance of input tokens per image, in its spend reservation (inference/input-bound.ts). */
        inputTokensPerImage?: number;
      }
    | Served<"embeddings", MediaEngines["embeddings"]>
    | Served<"moderation", MediaEngines["moderation"]>
    | Served<"images", MediaEngines["images"]>
    | Served<"speech", MediaEngines["speech"]>
    | Served<"transcription", MediaEngines["transcription"]>
  );

/** A model of a media family (every family but chat): a built-in engine, or routes to providers. */
export type MediaModelOf<Family extends MediaFamily> = CatalogModelBase & Served<Family, MediaEngines[Family]>;

/** The catalog model of one family. */
export type ModelOf<Family extends ModelFamily> = Extract<CatalogModel, { family: Family }>;

const price = (input: string, output: string): TokenPricing => ({ unit: "tokens", inputPerMillionMicros: parseUnits(input), outputPerMillionMicros: parseUnits(output) });
const builtIn = { ownedBy: "gateway", maxOutputTokens: 4096 } as const;
const textPrices: Record<string, TokenPricing> = {
  "echo-1": price("1000", "2000"),
  "reverse-1": price("2000", "4000"),
  "count-1": price("500", "1000"),
  "tools-1": price("1000", "2000"),
};

/**
 * The models served when no upstream is configured: local, deterministic stand-ins for every
 * family, free of network and weights (docs/operators/providers/built-in.md#built-in-models, says what each does).
 */
export const BUILT_IN_MODELS: readonly CatalogModel[] = [
  ...BUILT_IN_TEXT_MODELS.map(
    ({ id, description, engine }): CatalogModel => ({ ...builtIn, id, description, family: "chat", routes: [{ kind: "builtin", engine, target: builtInTarget(id) }], pricing: textPrices[id]! }),
  ),
  {
    ...builtIn,
    id: "hash-embed-1",
    family: "embeddings",
    description: "Hashing embedder: 256 dimensions, texts sharing words land near each other.",
    engine: hashingEmbedder,
    pricing: price("100", "0"),
  },
  {
    ...builtIn,
    id: "rules-moderation-1",
    family: "moderation",
    description: "Rule-based moderation: small documented word lists per category.",
    engine: ruleModerator,
    pricing: price("0", "0"),
  },
  {
    ...builtIn,
    id: "pattern-image-1",
    family: "images",
    description: "Deterministic PNG patterns from the prompt; one output token per 32x32 pixels.",
    engine: patternImages,
    pricing: price("1000", "100"),
    maxOutputTokens: 4 * 1024,
  },
  {
    ...builtIn,
    id: "tone-speech-1",
    family: "speech",
    description: "Tone speaker: WAV (or raw PCM) with one tone per token of the text.",
    engine: toneSpeaker,
    pricing: price("1000", "1000"),
  },
  {
    ...builtIn,
    id: "wav-transcribe-1",
    family: "transcription",
    description: "Reads back the text of WAVs made by the built-in speech models; other audio transcribes to empty text.",
    engine: wavTranscriber,
    pricing: price("1000", "1000"),
  },
  ...espeakModels(),
];

/** `espeak-speech-1`, offered only where espeak-ng is installed (see builtin/espeak.ts). */
function espeakModels(): CatalogModel[] {
  const binary = findEspeak();
  if (binary === undefined) return [];
  return [
    {
      ...builtIn,
      id: "espeak-speech-1",
      family: "speech",
      description: "espeak-ng on this machine: real synthesised English speech, WAV (or raw PCM).",
      engine: espeakSpeaker(binary),
      pricing: price("1000", "1000"),
    },
  ];
}

function listedPricing(pricing: ModelPricing): Model["pricing"] {
  switch (pricing.unit) {
    case "tokens":
      return { input_units_per_million_tokens: formatUnits(pricing.inputPerMillionMicros), output_units_per_million_tokens: formatUnits(pricing.outputPerMillionMicros) };
    case "characters":
      return { units_per_million_characters: formatUnits(pricing.perMillionMicros) };
    case "seconds":
      return { units_per_minute: formatUnits(pricing.perMinuteMicros) };
    case "images":
      return { units_per_image: Object.fromEntries(Object.entries(pricing.perImageMicros).map(([size, micros]) => [size, formatUnits(micros)])) };
  }
}

/** The models a gateway serves, by id. */
export class ModelCatalog {
  readonly #byId: Map<string, CatalogModel>;
  readonly #listedAt: number;

  /** `listedAt`: the `created` time models are listed with (seconds). */
  constructor(models: readonly CatalogModel[] = BUILT_IN_MODELS, listedAt = Math.floor(Date.now() / 1000)) {
    this.#byId = new Map(models.map((model) => [model.id, model]));
    this.#listedAt = listedAt;
  }

  get(id: string): CatalogModel | undefined {
    return this.#byId.get(id);
  }

  /** The first model of `family`: what a request that names no model gets (moderations). */
  defaultOf(family: ModelFamily): CatalogModel | undefined {
    return [...this.#byId.values()].find((model) => model.family === family);
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
      pricing: listedPricing(model.pricing),
      max_output_tokens: model.maxOutputTokens,
    };
  }
}
