import { formatUnits, parseUnits, type Model } from "@gateway-keys/contract";

/**
 * A model the gateway runs itself: deterministic, local, instant. They stand in for upstream
 * providers so demos and tests need no network and no weights, while the gateway around them
 * (auth, policies, metering, logging) is the real thing.
 */
export interface BuiltInModel {
  id: string;
  description: string;
  perRequestMicros: bigint;
  perCharacterMicros: bigint;
  /** An upper bound of the output length for this input, known before the model runs. */
  maxOutputCharacters(input: string): number;
  generate(input: string): string;
}

/** Characters are Unicode code points, so an emoji counts once. */
export function countCharacters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

const BUILT_IN_MODELS: readonly BuiltInModel[] = [
  {
    id: "echo-1",
    description: "Returns the input unchanged.",
    perRequestMicros: parseUnits("0.001"),
    perCharacterMicros: parseUnits("0.00001"),
    maxOutputCharacters: (input) => countCharacters(input),
    generate: (input) => input,
  },
  {
    id: "reverse-1",
    description: "Returns the input with its characters in reverse order.",
    perRequestMicros: parseUnits("0.002"),
    perCharacterMicros: parseUnits("0.00002"),
    maxOutputCharacters: (input) => countCharacters(input),
    generate: (input) => Array.from(input).reverse().join(""),
  },
  {
    id: "count-1",
    description: "Counts the characters and words of the input.",
    perRequestMicros: parseUnits("0.0005"),
    perCharacterMicros: parseUnits("0.000005"),
    // The answer is at most "32768 characters, 16384 words", well under 64 characters.
    maxOutputCharacters: () => 64,
    generate: (input) => {
      const words = input.split(/\s+/).filter((word) => word.length > 0).length;
      return `${countCharacters(input)} characters, ${words} words`;
    },
  },
];

/** The models a gateway serves, with their prices. */
export class ModelCatalog {
  readonly #byId: Map<string, BuiltInModel>;

  constructor(models: readonly BuiltInModel[] = BUILT_IN_MODELS) {
    this.#byId = new Map(models.map((model) => [model.id, model]));
  }

  get(id: string): BuiltInModel | undefined {
    return this.#byId.get(id);
  }

  /** Every model, as `GET /v1/models` lists them. */
  list(): Model[] {
    return [...this.#byId.values()].map(toWireModel);
  }
}

export function toWireModel(model: BuiltInModel): Model {
  return {
    object: "model",
    id: model.id,
    description: model.description,
    pricing: {
      perRequestUnits: formatUnits(model.perRequestMicros),
      perCharacterUnits: formatUnits(model.perCharacterMicros),
    },
  };
}

/** Price of one request: per request, plus per character of input and output. */
export function costOf(model: BuiltInModel, inputCharacters: number, outputCharacters: number): bigint {
  return model.perRequestMicros + model.perCharacterMicros * BigInt(inputCharacters + outputCharacters);
}
