import * as pulumi from "@pulumi/pulumi";
import { SECRET_PROPERTIES, UNKNOWN } from "../runtime/shapes";

/**
 * Pulumi's wire marker of a secret value: `{ [specialSigKey]: specialSecretSig, value }`. The plugin
 * tells the engine it accepts secrets (the provider server of `@pulumi/pulumi` does so for every
 * provider), so secret inputs arrive wrapped like this, and outputs wrapped like this are stored
 * encrypted whatever the program or SDK declares.
 */
type WrappedSecret = { [pulumi.runtime.specialSigKey]: typeof pulumi.runtime.specialSecretSig; value: unknown };

function isWrappedSecret(value: unknown): value is WrappedSecret {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[pulumi.runtime.specialSigKey] === pulumi.runtime.specialSecretSig
  );
}

/** `value` with every secret marker replaced by the value it wraps, at any depth: what the shared runtime reads. */
export function revealed(value: unknown): unknown {
  if (isWrappedSecret(value)) return revealed(value.value);
  if (Array.isArray(value)) return value.map(revealed);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, revealed(inner)]));
  return value;
}

/** `value` marked secret for the engine. */
export function wrapSecret(value: unknown): WrappedSecret {
  return { [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value };
}

/** A copy of `properties` with each of `names` (a key's {@link SECRET_PROPERTIES} by default) that is present marked secret. */
export function withSecretsMarked<T extends object>(properties: T, names: readonly string[] = SECRET_PROPERTIES): Record<string, unknown> {
  const marked: Record<string, unknown> = { ...(properties as Record<string, unknown>) };
  for (const name of names) {
    // A value not known yet (a planned rotation's secret) stays bare: the plan then shows it as changing.
    if (marked[name] !== undefined && marked[name] !== UNKNOWN && !isWrappedSecret(marked[name])) marked[name] = wrapSecret(marked[name]);
  }
  return marked;
}
