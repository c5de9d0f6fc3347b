import type { ModelPolicy } from "@gateway-keys/contract";

/**
 * Whether the key's model policy lets it call `modelId`: mode `all` allows every model; mode
 * `allowList` (our extension) allows exactly the listed ids.
 */
export function modelAllowed(key: { modelPolicy: ModelPolicy }, modelId: string): boolean {
  return key.modelPolicy.mode === "all" || key.modelPolicy.modelIds.includes(modelId);
}
