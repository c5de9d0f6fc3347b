import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "./api-key";
import type { ApiKeyArgs } from "./inputs";

/** Inputs of an {@link ApiKeyPair}: those of an {@link ApiKey}, with a generation in place of the rotation settings. */
export interface ApiKeyPairArgs extends Omit<ApiKeyArgs, "rotationTrigger" | "rotateAfter" | "rotationGracePeriod" | "adoptKeyId"> {
  /**
   * A whole number from 0. Raising it by one rotates the key that is not current and makes it the
   * current one; the key that was current keeps its secret until the generation after.
   */
  generation: pulumi.Input<number>;
}

/** Which of the two keys is current at a generation. */
export type PairSlot = "a" | "b";

const slotOf = (generation: number): PairSlot => (generation % 2 === 0 ? "a" : "b");

/** The rotation trigger of each slot: the last generation at which it became current (-1: never yet). */
function triggersOf(generation: number): Record<PairSlot, number> {
  return generation % 2 === 0 ? { a: generation, b: generation - 1 } : { a: generation - 1, b: generation };
}

function checkedGeneration(name: string, generation: number): number {
  if (!Number.isSafeInteger(generation) || generation < 0) {
    throw new Error(`ApiKeyPair "${name}": generation must be a whole number from 0, e.g. 0, then 1 for the first rotation`);
  }
  return generation;
}

/**
 * Two API keys that take turns, for zero-downtime rotation on any gateway: it needs only what the
 * seed contract guarantees (rotate replaces a secret at once), not the `rotation_grace` extension.
 *
 * The pair exports the current key's secret. Each new `generation` rotates the other key and makes
 * it current; the key that was current is left alone, so every consumer still holding the secret
 * the stack exported before keeps working until the generation after next. Roll consumers out
 * between two generations. Both keys carry the same policies: the pair's spend limit is that of
 * each key, twice over in total.
 *
 * @example
 * const ci = new ApiKeyPair("ci", { generation: 3, spendPolicy: { limitUnits: "100" } });
 * export const ciSecret = ci.secret; // the current key's secret
 */
export class ApiKeyPair extends pulumi.ComponentResource {
  /** The key of slot `a` (current at even generations). */
  readonly a: ApiKey;
  /** The key of slot `b` (current at odd generations). */
  readonly b: ApiKey;
  /** Which key is current: `a` or `b`. */
  readonly current: pulumi.Output<PairSlot>;
  /** The current key's secret (a Pulumi secret): hand this one out. */
  readonly secret: pulumi.Output<string | undefined>;
  /** The current key's id. */
  readonly keyId: pulumi.Output<string>;

  constructor(name: string, args: ApiKeyPairArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("gateway:index:ApiKeyPair", name, {}, opts);
    const { generation, name: label, ...keyArgs } = args;
    const checked = pulumi.output(generation).apply((value) => checkedGeneration(name, value));
    const triggers = checked.apply(triggersOf);
    const keyName = (slot: PairSlot) => pulumi.output(label ?? name).apply((base) => `${base} (${slot})`);
    this.a = new ApiKey(`${name}-a`, { ...keyArgs, name: keyName("a"), rotationTrigger: triggers.apply((t) => t.a) }, { parent: this });
    this.b = new ApiKey(`${name}-b`, { ...keyArgs, name: keyName("b"), rotationTrigger: triggers.apply((t) => t.b) }, { parent: this });
    this.current = checked.apply(slotOf);
    this.secret = pulumi.secret(
      pulumi.all([this.current, this.a.secret, this.b.secret]).apply(([slot, a, b]) => (slot === "a" ? a : b)),
    );
    this.keyId = pulumi.all([this.current, this.a.keyId, this.b.keyId]).apply(([slot, a, b]) => (slot === "a" ? a : b));
    this.registerOutputs({ current: this.current, secret: this.secret, keyId: this.keyId });
  }
}
