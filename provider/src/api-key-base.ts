import * as pulumi from "@pulumi/pulumi";
import { KEY_CHANGE_FIELDS, type KeyChangeField } from "@gateway-keys/contract";
import type { ApiKeyArgs, GatewayConnectionArgs } from "./inputs";
import { DERIVED_FIELDS, type DerivedField, type RotationRecord, type StoredKey } from "./runtime/shapes";

/** The outputs both classes declare (besides those that are also inputs, such as `name`). */
const OUTPUT_NAMES = [
  "keyId", "version", "secret", "secretKnown", "hint", "ownerId", "baseUrl", "provisioningKeyHint",
  "createdAt", "updatedAt", "rotatedAt", "previousSecretExpiresAt", "currentSecret", "previousSecret", "expired", "rotation", ...DERIVED_FIELDS,
] as const;

/** The fields of a PATCH a program declares as the contract names them. */
const DECLARED_CHANGES = KEY_CHANGE_FIELDS.filter(
  (field): field is Exclude<KeyChangeField, "name" | DerivedField> => field !== "name" && !(DERIVED_FIELDS as readonly string[]).includes(field),
);

/**
 * The inputs both classes send for `args`: the program's arguments, the connection as a secret,
 * whether this is a preview, and each output declared as an input left undefined (as every Pulumi
 * SDK does). Each class adds what differs: the name's default, adoption, the client reference.
 */
export function sharedInputs(args: ApiKeyArgs): Record<string, unknown> {
  const inputs: Record<string, unknown> = {
    // The key's state and policies, as the contract names what a PATCH changes (the name has its own
    // default; the alert durations are the provider's own, below).
    ...Object.fromEntries(DECLARED_CHANGES.map((field) => [field, args[field]])),
    expiryWarning: args.expiryWarning,
    rotationTrigger: args.rotationTrigger,
    rotateAfter: args.rotateAfter,
    rotationGracePeriod: args.rotationGracePeriod,
    retireWhenIdle: args.retireWhenIdle,
    inUseWarning: args.inUseWarning,
    connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
    // Lets `check` show a planned rotation's secret as unknown in a preview, and only there.
    planning: pulumi.runtime.isDryRun(),
  };
  for (const output of OUTPUT_NAMES) inputs[output] = undefined;
  return inputs;
}

/**
 * What every ApiKey resource exposes, whichever front door manages it — the dynamic provider
 * ({@link import("./api-key").ApiKey}) or the native plugin ({@link import("./native/resource").ApiKey}).
 * Declared once here, so the two classes cannot drift apart.
 */
export abstract class ApiKeyResource extends pulumi.CustomResource {
  /** The key's id on the gateway (`key_...`); also the resource id. */
  declare readonly keyId: pulumi.Output<string>;
  /** The key's version; goes up on every change, rotation and revoke. */
  declare readonly version: pulumi.Output<number>;
  /**
   * The secret this stack issued (a Pulumi secret). Undefined for an adopted or imported key the
   * stack has not rotated. After a rotation outside the stack it stays, but `secretKnown` is false:
   * the gateway no longer accepts it.
   */
  declare readonly secret: pulumi.Output<string | undefined>;
  /** Whether `secret` is the key's current secret: false for an adopted or imported key, or one rotated outside this stack. */
  declare readonly secretKnown: pulumi.Output<boolean>;
  /** Prefix and last four characters of the key's current secret, safe to show. */
  declare readonly hint: pulumi.Output<string>;
  /** `active` or `disabled`. */
  declare readonly state: pulumi.Output<StoredKey["state"]>;
  /** The owner the key belongs to (fixed by the provisioning key). */
  declare readonly ownerId: pulumi.Output<string>;
  /** The gateway the key lives on. */
  declare readonly baseUrl: pulumi.Output<string>;
  /** Hint of the provisioning key the key was last managed with; a new one makes the next preview ask its owner. */
  declare readonly provisioningKeyHint: pulumi.Output<string>;
  /** The key's own `connection` input, if it has one: a Pulumi secret, kept so refresh and destroy reach the key. */
  declare readonly connection: pulumi.Output<GatewayConnectionArgs | undefined>;
  /** The key's label. */
  declare readonly name: pulumi.Output<string>;
  /** The spending cap, its amount in canonical spelling ("100.5"); undefined when the key has none. */
  declare readonly spendPolicy: pulumi.Output<StoredKey["spendPolicy"]>;
  /** The logging policy, defaults filled in. */
  declare readonly loggingPolicy: pulumi.Output<StoredKey["loggingPolicy"]>;
  /** The model policy, defaults filled in; a mode newer than this package reads as `Unrecognized`. */
  declare readonly modelPolicy: pulumi.Output<StoredKey["modelPolicy"]>;
  /** The rate limit policy; undefined when the key has none. */
  declare readonly rateLimitPolicy: pulumi.Output<StoredKey["rateLimitPolicy"]>;
  /** When the key stops authenticating (ISO 8601, UTC); undefined when it never does. */
  declare readonly expiresAt: pulumi.Output<string | undefined>;
  /** Whether `expiresAt` has passed (as of the last create, update or refresh): the gateway refuses the key until a later `expiresAt` is applied. */
  declare readonly expired: pulumi.Output<boolean>;
  /** Fractions of the spend limit that send `key.budget_threshold` (ascending); empty: none. */
  declare readonly budgetAlertThresholds: pulumi.Output<number[]>;
  /** The declared `expiryWarning`, if any. */
  declare readonly expiryWarning: pulumi.Output<string | undefined>;
  /** Seconds before `expiresAt` that the gateway sends `key.expiring` (from `expiryWarning`); undefined: none. */
  declare readonly expiryWarningSeconds: pulumi.Output<number | undefined>;
  /** Age of the secret at which the gateway sends `key.rotation_due` (from `rotateAfter`); undefined: none. */
  declare readonly rotateAfterSeconds: pulumi.Output<number | undefined>;
  /** The key's labels. */
  declare readonly labels: pulumi.Output<Record<string, string>>;
  /** When the key was created (ISO 8601). */
  declare readonly createdAt: pulumi.Output<string>;
  /** When the key last changed (ISO 8601). */
  declare readonly updatedAt: pulumi.Output<string>;
  /** When the secret was last rotated (ISO 8601), or null. */
  declare readonly rotatedAt: pulumi.Output<string | null>;
  /** Until when the secret the last rotation replaced keeps working (ISO 8601), or null without a grace period. */
  declare readonly previousSecretExpiresAt: pulumi.Output<string | null>;
  /**
   * How the current secret has been used, as of the last create, update or refresh: its hint, when it
   * was last used, requests since the last rotation, and the most recent distinct clients (User-Agent,
   * address, first and last seen). Null from a gateway without the `secret_use` extension. Read-only:
   * a refresh brings it in and it is never a change to apply.
   */
  declare readonly currentSecret: pulumi.Output<StoredKey["currentSecret"]>;
  /**
   * The secret the last rotation replaced, while that rotation had a grace period: its hint, grace end
   * (`expiresAt`), `retireWhenIdleSeconds`, when it was retired and why, and its use and clients since
   * the rotation — who still has to move to the new secret. Null otherwise. Read-only, like `currentSecret`.
   */
  declare readonly previousSecret: pulumi.Output<StoredKey["previousSecret"]>;
  /** With `rotateAfter`: when the stack issued the current secret and why; the schedule counts from `issuedAt`. */
  declare readonly rotation: pulumi.Output<RotationRecord | undefined>;
  /** The declared `retireWhenIdle`, if any. */
  declare readonly retireWhenIdle: pulumi.Output<string | undefined>;
  /** The declared `inUseWarning`, if any. */
  declare readonly inUseWarning: pulumi.Output<string | undefined>;
}
