import type * as pulumi from "@pulumi/pulumi";
import type { KeyChangeField, ModelPolicy, ResetPeriod, SettableKeyState, SpendPolicy, WebhookEventType } from "@gateway-keys/contract";

/**
 * Spending cap of a key or a team, in credits: one window (`limitUnits` and `resetPeriod`) or
 * several at once (`windows`, e.g. a daily and a monthly cap), never both. A request is served only
 * when every window affords it.
 */
export interface SpendPolicyArgs {
  /**
   * Maximum spend in one window, in credits, as a decimal string: greater than 0, at most 12 integer
   * and 6 fraction digits, no sign or exponent (e.g. `"100"`, `"12.5"`). Leave it out with `windows`.
   */
  limitUnits?: pulumi.Input<string>;
  /** The credit unit. Only `"unit"` is allowed. Default `"unit"`. */
  currency?: pulumi.Input<SpendPolicy["currency"]>;
  /**
   * When the limit starts again: `"never"` (a lifetime cap, the default), `"daily"` (00:00 UTC),
   * `"weekly"` (00:00 UTC on Monday) or `"monthly"` (00:00 UTC on the 1st). No job runs: the first
   * request after a boundary sees a fresh window. A change takes effect at once: the new window counts
   * what the key spent since that window's start.
   */
  resetPeriod?: pulumi.Input<ResetPeriod>;
  /**
   * Several windows enforced together, instead of `limitUnits` and `resetPeriod`: 1 to 4, each a
   * distinct `resetPeriod`, e.g. `[{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }]`.
   * One window reads back in the single form; several in the order never, daily, weekly, monthly.
   */
  windows?: pulumi.Input<pulumi.Input<SpendWindowArgs>[]>;
}

/** One window of a spend policy's `windows` form. */
export interface SpendWindowArgs {
  /** Maximum spend in the window, in credits, as a decimal string (e.g. `"50"`). */
  limitUnits: pulumi.Input<string>;
  /** When the window starts again: `"never"`, `"daily"`, `"weekly"` or `"monthly"` (UTC calendar boundaries). Default `"never"`. */
  resetPeriod?: pulumi.Input<ResetPeriod>;
}

/** How fast a key may call models, across every process of the gateway. At least one limit. */
export interface RateLimitPolicyArgs {
  /** Requests per minute (a bucket that holds a minute's worth and refills continuously): 1 to 1,000,000. */
  requestsPerMinute?: pulumi.Input<number>;
  /** Tokens per minute, counted as the spend policy counts them (input and output bound, unused output given back). */
  tokensPerMinute?: pulumi.Input<number>;
  /** Requests in flight at once: 1 to 10,000. */
  maxConcurrentRequests?: pulumi.Input<number>;
}

/** What the gateway stores about requests made with the key. */
export interface LoggingPolicyArgs {
  /** Store request content. Default `false`. */
  storeRequest?: pulumi.Input<boolean>;
  /** Store response content. Default `false`. */
  storeResponse?: pulumi.Input<boolean>;
  /** Days to keep request logs: an integer from 1 to 365. Default `30`. */
  retentionDays?: pulumi.Input<number>;
}

/** Which models the key may call. */
export interface ModelPolicyArgs {
  /** `"all"` (every model) or `"allowList"` (only `modelIds`). Default `"all"`. */
  mode?: pulumi.Input<ModelPolicy["mode"]>;
  /** Model ids: empty with `"all"`, 1 to 100 distinct ids with `"allowList"`. Default `[]`. */
  modelIds?: pulumi.Input<pulumi.Input<string>[]>;
}

/**
 * Where the key lives: a gateway and a provisioning key (which fixes the owner). Give it to manage
 * keys of several gateways or owners in one program; left out, the stack config `gateway:baseUrl`
 * and `gateway:provisioningKey` apply, then the environment variables `GATEWAY_BASE_URL` and
 * `GATEWAY_PROVISIONING_KEY`. Pass it as a secret (`pulumi.secret({...})`) or from secret config.
 */
export interface GatewayConnectionArgs {
  /** Base URL of the gateway, e.g. `http://127.0.0.1:8787`. */
  baseUrl?: pulumi.Input<string>;
  /** Provisioning key of the owner (`gwp_...`). Keep it secret. */
  provisioningKey?: pulumi.Input<string>;
}

/** Inputs of an {@link ApiKey}. */
export interface ApiKeyArgs {
  /** Human-readable label: 1 to 128 characters, no control characters. Default: the resource name. */
  name?: pulumi.Input<string>;
  /** `"active"` or `"disabled"`. Default `"active"`. A key is revoked only by deleting the resource. */
  state?: pulumi.Input<SettableKeyState>;
  /** Spending cap. Left out, the key has no cap. */
  spendPolicy?: pulumi.Input<SpendPolicyArgs>;
  /** Request logging. Default: store nothing, keep log rows 30 days. */
  loggingPolicy?: pulumi.Input<LoggingPolicyArgs>;
  /** Model access. Default: all models. */
  modelPolicy?: pulumi.Input<ModelPolicyArgs>;
  /** Rate limits (429 with Retry-After beyond them). Left out, the key has none. */
  rateLimitPolicy?: pulumi.Input<RateLimitPolicyArgs>;
  /**
   * When the key stops authenticating (401 `key_expired`): an ISO 8601 date and time with a zone,
   * in the future when set; stored in UTC. Changing it (to extend the key) is an in-place update.
   * Left out, the key never expires.
   */
  expiresAt?: pulumi.Input<string>;
  /**
   * Fractions of `spendPolicy.limitUnits` at which the gateway sends a `key.budget_threshold`
   * webhook event, at most once per spend window each (a new window re-arms them): greater than 0,
   * at most 1, ascending, up to 10, e.g. `[0.5, 0.8, 1]`. Default none. A change is an in-place update.
   */
  budgetAlertThresholds?: pulumi.Input<pulumi.Input<number>[]>;
  /**
   * How long before `expiresAt` the gateway sends a `key.expiring` webhook event: `"7d"`, `"12h"`,
   * `"90m"`, from 1m to 365d. Default: no warning. A change is an in-place update.
   */
  expiryWarning?: pulumi.Input<string>;
  /** Labels to find, group and bill keys by: up to 32 names (lowercase, digits, `._/-`) to strings of up to 256 characters. */
  labels?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Any value; changing it (adding or removing it too) rotates the key's secret in place: the keyId
   * stays; the old secret stops working at once, or after `rotationGracePeriod`. E.g. a date or a
   * counter. For a schedule, use `rotateAfter`.
   */
  rotationTrigger?: pulumi.Input<unknown>;
  /**
   * Rotates the secret once it is older than this: a whole number and a unit, `"30d"`, `"12h"` or
   * `"90m"`, from 1h to 3650d. Counted from the create, the stack's last rotation, or the update that
   * added it. A due rotation shows in `pulumi preview` (a change of `rotation`) and happens at the
   * next `pulumi up`, once per due date, in place. The key carries it to the gateway too
   * (`rotateAfterSeconds`), which sends a `key.rotation_due` webhook event when the secret is that old.
   */
  rotateAfter?: pulumi.Input<string>;
  /**
   * How long the replaced secret keeps working after a rotation, so consumers can move to the new one
   * with no request refused: `"1h"`, `"30m"`, `"45s"`, up to `"7d"`. Needs the gateway's
   * `rotation_grace` extension (on a gateway without it, use `ApiKeyPair`). Default: none, the old
   * secret stops at once.
   */
  rotationGracePeriod?: pulumi.Input<string>;
  /**
   * Ends the replaced secret early, as soon as it has gone unused this long after a rotation: `"15m"`,
   * `"1h"`, `"30s"`, from 5s to 7d (never later than the grace's end). Sent with each rotation as
   * `retireWhenIdleSeconds`. Needs `rotationGracePeriod` (`pulumi preview` fails without one) and the
   * gateway's `secret_use` extension. Default: the old secret works for the whole grace period.
   */
  retireWhenIdle?: pulumi.Input<string>;
  /**
   * How long before the replaced secret's grace ends the gateway sends a `key.previous_secret_in_use`
   * webhook event if that secret is still in use, naming its clients: `"15m"`, `"1h"`, shorter than
   * `rotationGracePeriod` (which it needs). Sent with each rotation as `inUseWarningSeconds`.
   * Default: when a quarter of the grace is left.
   */
  inUseWarning?: pulumi.Input<string>;
  /**
   * The team the key belongs to (`team_...`, e.g. a {@link Team}'s `teamId`): its spend, rate
   * limits and model ceiling then hold for the key too, beside the key's own. Changing it moves the
   * key in place (one PATCH): what the key spent stays counted where it was spent. Left out, the key
   * belongs to no team.
   */
  teamId?: pulumi.Input<string>;
  /** The gateway and owner; see {@link GatewayConnectionArgs}. */
  connection?: pulumi.Input<GatewayConnectionArgs>;
  /**
   * Adopt this existing key (`key_...`) instead of creating one. The key's live name, state and
   * policies must equal the declared ones, or the adoption fails and nothing changes. Its secret is
   * unknown to the stack (`secretKnown: false`) until a `rotationTrigger` change rotates it.
   * The `import` resource option sets this too.
   */
  adoptKeyId?: pulumi.Input<string>;
}

/**
 * Compile-time proof that the arguments name every field the contract lets a key change, but those
 * the provider sets from its durations (`expiryWarningSeconds` from `expiryWarning`, `rotateAfterSeconds` from `rotateAfter`).
 */
const argsCoverChanges: Exclude<KeyChangeField, keyof ApiKeyArgs | "expiryWarningSeconds" | "rotateAfterSeconds"> extends never ? true : false = true;
void argsCoverChanges;

/** Inputs of a {@link Webhook}: an endpoint the gateway POSTs events to, signed with its secret (Standard Webhooks). */
export interface WebhookArgs {
  /**
   * Where events are POSTed: an http:// or https:// URL of at most 2048 characters, without user
   * or password. The gateway refuses loopback, link-local and private targets at delivery unless
   * its operator allows them. A change is an in-place update.
   */
  url: pulumi.Input<string>;
  /**
   * The event types to receive, at least one, no repeats: `key.budget_threshold`, `key.expiring`,
   * `key.expired`, `key.rotation_due`, `team.budget_threshold` (a team's window, see {@link TeamArgs}),
   * and `audit.<action>` for each audit action (`audit.create`, `audit.update`, `audit.rotate`,
   * `audit.revoke`, `audit.team_create`...). A change is an in-place update.
   */
  events: pulumi.Input<pulumi.Input<WebhookEventType>[]>;
  /**
   * Receive only events about keys that carry every one of these labels with these values. Empty
   * (the default): every key, and events about no key.
   */
  labelSelector?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Whether deliveries are made. Default `true`. */
  enabled?: pulumi.Input<boolean>;
  /**
   * Any value; changing it (adding or removing it too) rotates the signing secret in place: the
   * endpoint stays, and the old secret keeps signing beside the new one for `rotationOverlap`.
   */
  rotationTrigger?: pulumi.Input<unknown>;
  /** How long the replaced signing secret keeps signing after a rotation: `"1h"`, `"30m"`, up to `"7d"`. Default: the gateway's (a day). */
  rotationOverlap?: pulumi.Input<string>;
  /** The gateway and owner; see {@link GatewayConnectionArgs}. */
  connection?: pulumi.Input<GatewayConnectionArgs>;
}

/** Inputs of a {@link Team}: a budget, rate limits and a model ceiling shared by every key that names it. */
export interface TeamArgs {
  /** Human-readable label: 1 to 128 characters, no control characters. Default: the resource name. A change is an in-place update. */
  name?: pulumi.Input<string>;
  /** Labels to find and bill teams by: up to 32 names (lowercase, digits, `._/-`) to strings of up to 256 characters. */
  labels?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * The team's spending cap across all its keys: one window or several (`windows`). A request
   * beyond it is refused with 402 `team_budget_exceeded`, naming the team and the window. Left out, no cap.
   */
  spendPolicy?: pulumi.Input<SpendPolicyArgs>;
  /** The team's rate limits across all its keys and every gateway process (429 `team_rate_limited` with Retry-After). Left out, none. */
  rateLimitPolicy?: pulumi.Input<RateLimitPolicyArgs>;
  /** The model ceiling: a key in the team may call only models the team allows (and its own policy allows). Default: all models. */
  modelPolicy?: pulumi.Input<ModelPolicyArgs>;
  /**
   * Fractions of each spend window's limit at which the gateway sends a `team.budget_threshold`
   * webhook event, once per window each: greater than 0, at most 1, ascending, up to 10. Default none.
   */
  budgetAlertThresholds?: pulumi.Input<pulumi.Input<number>[]>;
  /** The gateway and owner; see {@link GatewayConnectionArgs}. */
  connection?: pulumi.Input<GatewayConnectionArgs>;
}
