/** Paths of the account API, relative to the base URL. */
export const ACCOUNT_PATHS = {
  keys: "/v1/account/api-keys",
  key: (keyId: string) => `/v1/account/api-keys/${encodeURIComponent(keyId)}`,
  rotate: (keyId: string) => `/v1/account/api-keys/${encodeURIComponent(keyId)}/rotate`,
  revoke: (keyId: string) => `/v1/account/api-keys/${encodeURIComponent(keyId)}/revoke`,
  usageSummary: "/v1/account/usage/summary",
  metrics: "/v1/account/metrics",
  logs: "/v1/account/logs",
  /** Extension: which owner and scopes the calling provisioning key has. */
  whoami: "/v1/account/whoami",
} as const;

/** Paths of the model and public endpoints. */
export const PUBLIC_PATHS = {
  responses: "/v1/responses",
  chatCompletions: "/v1/chat/completions",
  messages: "/v1/messages",
  embeddings: "/v1/embeddings",
  moderations: "/v1/moderations",
  imageGenerations: "/v1/images/generations",
  speech: "/v1/audio/speech",
  transcriptions: "/v1/audio/transcriptions",
  models: "/v1/models",
  model: (modelId: string) => `/v1/models/${encodeURIComponent(modelId)}`,
  startups: "/v1/startups",
} as const;

/** Response header with what a model request was charged, in credits (every family, streams included, as a trailer-free header: the reservation's bound for a stream). */
export const COST_HEADER = "x-gateway-cost-units";

/** Header that makes an account mutation safe to retry. */
export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Header set on a response replayed from the idempotency store. */
export const REPLAYED_HEADER = "idempotent-replayed";
/** Idempotency keys: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
