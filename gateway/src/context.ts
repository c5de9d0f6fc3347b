import type { Scope } from "@gateway-keys/contract";
import type { ReplyCipher } from "./crypto";
import type { ModelCatalog } from "./models/catalog";
import type { RateLimiter } from "./rate-limit";
import type { Store, StoredApiKey } from "./store/types";

/** What every route and hook of one app shares. Built once by `createApp`. */
export interface GatewayContext {
  store: Store;
  /** Current time in ms, from the injected clock. */
  now: () => number;
  cipher: ReplyCipher;
  idempotencyTtlMs: number;
  rateLimiter: RateLimiter;
  models: ModelCatalog;
}

/** Who is calling an account endpoint: a provisioning key and the owner it is bound to. */
export interface AccountPrincipal {
  ownerId: string;
  provisioningKeyId: string;
  /** Prefix and last four characters of the calling provisioning key. */
  hint: string;
  scopes: readonly Scope[];
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the provisioning-key hook on `/v1/account/*`. */
    account: AccountPrincipal | null;
    /** Set by the regular-key hook on model endpoints (when a key was sent). */
    apiKey: StoredApiKey | null;
    /** Set on account mutations once the Idempotency-Key header has been checked. */
    idempotencyKey: string | null;
  }
}
