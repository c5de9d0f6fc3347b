import type { Pool } from "undici";

/** The wire a provider speaks. */
export type ProviderWire = "openai" | "anthropic";

/** The Messages API version the gateway speaks to providers when the client names none. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** One provider as the gateway reaches it: a pooled connection and its credentials. */
export interface UpstreamProvider {
  name: string;
  wire: ProviderWire;
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  pool: Pool;
  /** Hears how long each attempt took to its response headers (or its failure); the metrics listen. */
  observe?: (outcome: "ok" | "error_status" | "timeout" | "failed", seconds: number) => void;
}
