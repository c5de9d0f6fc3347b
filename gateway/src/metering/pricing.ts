/**
 * Prices and what a request costs at them: every charge and reservation is computed here, in
 * integer micro-credits, rounded up.
 */

/** What a request used, in its model's unit: tokens (in and out), or characters or seconds of input. */
export interface MeteredUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Token prices: credits (as micro-units) per million input and per million output tokens. */
export interface TokenPricing {
  unit: "tokens";
  inputPerMillionMicros: bigint;
  outputPerMillionMicros: bigint;
}

/**
 * A model's price in its family's unit: tokens (every built-in model; forwarded chat, embeddings
 * and moderation), characters of input (forwarded speech), minutes of audio (forwarded
 * transcription), or images by size (forwarded images).
 */
export type ModelPricing =
  | TokenPricing
  | { unit: "characters"; perMillionMicros: bigint }
  | { unit: "seconds"; perMinuteMicros: bigint }
  | { unit: "images"; perImageMicros: Readonly<Record<string, bigint>> };

const MICROS_PER_MILLION = 1_000_000n;

const divideUp = (amount: bigint, by: bigint) => (amount + by - 1n) / by;

/**
 * What `usage` costs at the model's price, rounded up to a whole micro-unit. For a model priced by
 * characters or seconds, `inputTokens` holds those; images are priced by size ({@link imageCost}).
 */
export function costOf(pricing: ModelPricing, usage: MeteredUsage): bigint {
  switch (pricing.unit) {
    case "tokens":
      return divideUp(BigInt(usage.inputTokens) * pricing.inputPerMillionMicros + BigInt(usage.outputTokens) * pricing.outputPerMillionMicros, MICROS_PER_MILLION);
    case "characters":
      return divideUp(BigInt(usage.inputTokens) * pricing.perMillionMicros, MICROS_PER_MILLION);
    case "seconds":
      return divideUp(BigInt(usage.inputTokens) * pricing.perMinuteMicros, 60n);
    case "images":
      throw new Error("an images model is priced per image by size: use imageCost");
  }
}

/**
 * The most output tokens, up to `max`, that a request of `inputTokens` can be given within
 * `budgetMicros` at `pricing` (0 when not even one fits): the bound a request that set none is
 * served with when the key cannot afford the model's whole output.
 */
export function affordableOutputTokens(pricing: TokenPricing, inputTokens: number, budgetMicros: bigint, max: number): number {
  const left = budgetMicros * MICROS_PER_MILLION - BigInt(inputTokens) * pricing.inputPerMillionMicros;
  if (left < 0n) return 0;
  if (pricing.outputPerMillionMicros === 0n) return max;
  const affordable = left / pricing.outputPerMillionMicros;
  return affordable >= BigInt(max) ? max : Number(affordable);
}

/** What `count` images of `size` cost, or `undefined` for a size the model has no price for. */
export function imageCost(pricing: Extract<ModelPricing, { unit: "images" }>, size: string, count: number): bigint | undefined {
  const each = pricing.perImageMicros[size];
  return each === undefined ? undefined : each * BigInt(count);
}

