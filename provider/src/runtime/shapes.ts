import { ApiKey, CreateApiKeyRequest, KeyId, NULLABLE_POLICIES, type KeyChangeField, type SettableKeyState } from "@gateway-keys/contract";
import { z } from "zod";
import { ConnectionInput } from "./connection";
import { ExpiryWarning, InUseWarning, RetireWhenIdle, RotateAfter, RotationGracePeriod } from "./time";

/** The engine's placeholder for a value not known until apply (an output of another resource). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/**
 * The properties of a key kept encrypted in a stack's state, by either front door: its one-time
 * secret, and its `connection` (which may hold a provisioning key).
 */
export const SECRET_PROPERTIES = ["secret", "connection"] as const;

/** Whether a value holds, anywhere inside, a value not known until apply. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * When the secret the stack manages was issued, and why: the state `rotateAfter` counts from. `check`
 * computes it (carried over while nothing happens; new when a rotation is planned), so a due
 * rotation shows in `pulumi preview --diff` as a change of `rotation` naming its reason.
 */
export const RotationRecord = z.object({ issuedAt: z.string(), reason: z.string() });
export type RotationRecord = z.output<typeof RotationRecord>;

/**
 * The inputs of an ApiKey: the contract's create request (name, state, policies, defaults and all)
 * plus the provider's own fields. Top-level properties it does not name, such as the engine's
 * `__provider`, are dropped; inside, the contract's schemas stay strict.
 */
export const ApiKeyInputs = z.object({
  ...CreateApiKeyRequest.omit({ clientReference: true }).shape,
  /** Any value; changing it rotates the secret. */
  rotationTrigger: z.unknown().optional(),
  /** Rotate the secret once it is older than this (`"30d"`). */
  rotateAfter: RotateAfter.optional(),
  /** How long a replaced secret keeps working after a rotation (`"1h"`); needs the gateway's `rotation_grace`. */
  rotationGracePeriod: RotationGracePeriod.optional(),
  /** With a grace period: the replaced secret stops once unused this long (`"15m"`); sent as rotate's `retireWhenIdleSeconds`. */
  retireWhenIdle: RetireWhenIdle.optional(),
  /** With a grace period: how long before its end `key.previous_secret_in_use` is sent (`"15m"`); sent as rotate's `inUseWarningSeconds`. */
  inUseWarning: InUseWarning.optional(),
  /** How long before `expiresAt` the gateway sends `key.expiring` (`"7d"`); sent as `expiryWarningSeconds`. */
  expiryWarning: ExpiryWarning.optional(),
  connection: ConnectionInput.optional(),
  /** An existing key to take over instead of creating one. */
  adoptKeyId: KeyId.optional(),
  /**
   * Hidden, set by the ApiKey class: the resource's URN. It names the key on the gateway
   * (`clientReference`), so a create interrupted by a crash is found again, and it addresses warnings.
   */
  clientReference: z.string().optional(),
  /** Hidden, set by the ApiKey class: whether the engine is previewing. `check` reads it and drops it. */
  planning: z.boolean().optional(),
  /** Hidden, computed by `check` from the previous inputs and the clock: see {@link RotationRecord}. */
  rotation: RotationRecord.optional(),
});


/**
 * The contract's fields `check` computes from the provider's durations, never declared as such:
 * `expiryWarningSeconds` from `expiryWarning`, and `rotateAfterSeconds` from `rotateAfter` (so the
 * gateway sends `key.rotation_due` when the schedule the stack keeps comes due).
 */
export const DERIVED_FIELDS = ["expiryWarningSeconds", "rotateAfterSeconds"] as const satisfies readonly KeyChangeField[];
export type DerivedField = (typeof DERIVED_FIELDS)[number];

/** A key's inputs after `check`: what the program declares, defaults filled, amounts canonical. */
export type DesiredKey = z.output<typeof ApiKeyInputs>;

/**
 * What `check` hands on when a value is not known until apply (only during a preview): the program's
 * inputs, partly unchecked. `diff` tells it from a {@link DesiredKey} with {@link isSettled}.
 */
export type PendingInputs = Readonly<Record<string, unknown>>;

/** Inputs as `check` returns them. */
export type CheckedInputs = DesiredKey | PendingInputs;

/** Whether `check` validated every input, none of them waiting for apply. */
export function isSettled(inputs: CheckedInputs): inputs is DesiredKey {
  return !containsUnknown(inputs);
}

/**
 * Fields of the gateway's record the stack does not keep: readings of spend (`spentUnits`,
 * `spendWindow`, `lastUsedAt`), what a live key never has (`revokedAt`), and the reference the stack
 * sets itself (`clientReference`, an input). The use of each secret (`currentSecret`,
 * `previousSecret`: last use, requests, clients) is kept, as read-only outputs a refresh brings in:
 * `diff` compares declared inputs only, so a refresh after traffic shows no change.
 */
const NOT_KEPT = ["object", "spentUnits", "spendWindow", "spendWindows", "lastUsedAt", "revokedAt", "clientReference"] as const;

/** The policies a key may have none of: kept only when set (the engine's state holds no `undefined`). */
type NullablePolicy = (typeof NULLABLE_POLICIES)[number];
type RecordField = Exclude<keyof ApiKey, (typeof NOT_KEPT)[number] | NullablePolicy>;

/** The fields of the gateway's record that the stack keeps, exactly as read: every field but {@link NOT_KEPT}. */
export const RECORD_FIELDS = (Object.keys(ApiKey.shape) as (keyof ApiKey)[]).filter(
  (field): field is RecordField | NullablePolicy => !(NOT_KEPT as readonly string[]).includes(field),
);

/** A key's outputs, as stored in the stack's state (the secret encrypted by the engine). */
export type StoredKey = Pick<ApiKey, RecordField> & { [Policy in NullablePolicy]?: NonNullable<ApiKey[Policy]> } & StackFields;

/** What the stack keeps beside the gateway's record. */
interface StackFields {
  /**
   * The secret this stack issued. Absent for an adopted key the stack never rotated; after a rotation
   * outside the stack it is kept but no longer the key's secret (`secretKnown` false).
   */
  secret?: string;
  /** Whether {@link secret} is the key's current secret. */
  secretKnown: boolean;
  /** The gateway the key lives on. */
  baseUrl: string;
  /** Hint of the provisioning key the key was last managed with. */
  provisioningKeyHint: string;
  rotationTrigger?: unknown;
  rotateAfter?: string;
  rotationGracePeriod?: string;
  retireWhenIdle?: string;
  inUseWarning?: string;
  expiryWarning?: string;
  /** See {@link RotationRecord}; present while `rotateAfter` is set. */
  rotation?: RotationRecord;
  /** The resource's URN, as the ApiKey class passed it. */
  clientReference?: string;
  /** The key's own `connection` input, kept (as a secret output) so refresh and delete reach it. */
  connection?: ConnectionInput;
}

/** The inputs the stack carries beside the key's record: recorded as they are declared. */
export const CARRIED_INPUTS = [
  "rotationTrigger",
  "rotateAfter",
  "rotationGracePeriod",
  "retireWhenIdle",
  "inUseWarning",
  "expiryWarning",
  "rotation",
  "clientReference",
  "connection",
] as const;
export type CarriedInputs = Pick<DesiredKey, (typeof CARRIED_INPUTS)[number]>;

/** The inputs a live key implies (what `read` reports), so a change made outside Pulumi shows in the next preview. */
export type ReadInputs = Pick<StoredKey, Exclude<KeyChangeField, "state" | DerivedField> | (typeof CARRIED_INPUTS)[number]> & {
  state: SettableKeyState;
};
