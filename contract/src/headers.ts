/** Headers with a meaning of their own on this API. */

/** Response header with what a model request was charged, in credits (every family, streams included, as a trailer-free header: the reservation's bound for a stream). */
export const COST_HEADER = "x-gateway-cost-units";

/**
 * Response header naming, comma-separated, the request's fields that were not carried to the
 * model that answered: hints its wire has no setting for (an image's `detail`), and, on a model
 * configured with `unsupportedFields: drop`, fields it cannot carry. Absent when nothing was left out.
 */
export const DROPPED_FIELDS_HEADER = "x-gateway-dropped-fields";

/**
 * Response header naming the route that answered a model request: `provider/model` as the
 * gateway's config names them (docs/operators/routing.md) — never a credential or an address.
 * Absent when a built-in model answered.
 */
export const ROUTE_HEADER = "x-gateway-route";

/** Header that makes an account mutation safe to retry. */
export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Header set on a response replayed from the idempotency store. */
export const REPLAYED_HEADER = "idempotent-replayed";
/** Idempotency keys: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
