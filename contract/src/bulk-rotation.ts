import { z } from "zod";
import { ApiKey, checkRotationTerms, KeyId, KeyVersion, RotationTermsFields, Timestamp } from "./api-key";
import { LABEL_SELECTORS_MAX, LabelSelectorText } from "./label-selector";
import { looseEnum } from "./reading";

/** Bounds of extension `bulk_rotation` (docs/api.md records them). */
export const BULK_ROTATION_LIMITS = {
  /**
   * Keys one bulk rotation selects at most (revoked keys are not counted). A selector that selects
   * more is refused, dry run or not: narrow it with another label and run it once per part. The
   * bound keeps the operation one short unit of work, and its answer (every new secret) readable.
   */
  maxKeys: 100,
} as const;

const PINS_MESSAGE = "expected an object of key ids to the version the dry run showed, e.g. { \"key_0r4B9TXiCfin7DT82uB3\": 3 }";

/**
 * Body of `POST /v1/account/api-keys/bulk-rotate` (extension `bulk_rotation`): the keys whose labels
 * meet every `label` selector (as the key list's `label` query; revoked keys left out), rotated with
 * one set of rotation terms.
 *
 * `dryRun: true` changes nothing and answers the selected keys with their versions, their use and
 * clients (`key.currentSecret`, `key.previousSecret`) and last use. A rotation that is not a dry run
 * must pin, in `expectedVersions`, the version of each key it rotates, as the dry run showed it: a
 * key changed since is reported as a `conflict` and left alone, never overwritten.
 */
export const BulkRotateRequest = z
  .strictObject({
    label: z
      .array(LabelSelectorText, { error: 'expected an array of label selectors, e.g. ["team=search"]' })
      .min(1, { error: "expected at least one label selector: a bulk rotation never selects every key by default" })
      .max(LABEL_SELECTORS_MAX, { error: `at most ${LABEL_SELECTORS_MAX} label selectors` }),
    dryRun: z.boolean({ error: "expected true or false" }).default(false),
    expectedVersions: z
      .record(KeyId, KeyVersion, { error: PINS_MESSAGE })
      .refine((pins) => Object.keys(pins).length >= 1 && Object.keys(pins).length <= BULK_ROTATION_LIMITS.maxKeys, {
        error: `expected 1 to ${BULK_ROTATION_LIMITS.maxKeys} keys`,
      })
      .optional(),
    ...RotationTermsFields,
  })
  .superRefine((body, ctx) => {
    checkRotationTerms(body, ctx);
    if (!body.dryRun && body.expectedVersions === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["expectedVersions"],
        message: "required unless dryRun is true: pin each key's version as the dry run showed it (keys[].key.version)",
      });
    }
  });
export type BulkRotateRequest = z.input<typeof BulkRotateRequest>;
export type BulkRotateParams = z.output<typeof BulkRotateRequest>;

/**
 * What a bulk rotation did, or (dry run) would do, with one key:
 * - `planned`: a dry run selected it; the rotation would rotate it;
 * - `rotated`: rotated now, `secret` is its new secret;
 * - `conflict`: its version is not the one pinned (it changed since the dry run): left alone;
 * - `revoked`: revoked since the dry run: left alone;
 * - `not_selected`: pinned, but its labels do not meet the selectors: left alone;
 * - `not_found`: pinned, but no key of the owner has this id;
 * - `not_in_plan`: selected, but not pinned (it came to match since the dry run): left alone.
 */
export const BULK_ROTATION_OUTCOMES = ["planned", "rotated", "conflict", "revoked", "not_selected", "not_found", "not_in_plan"] as const;
export type BulkRotationOutcome = (typeof BULK_ROTATION_OUTCOMES)[number];

/** One key of a bulk rotation's answer. */
export const BulkRotationItem = z.object({
  keyId: z.string(),
  outcome: looseEnum(BULK_ROTATION_OUTCOMES),
  /** The version the request pinned for it, or null (a dry run, a key not pinned). */
  expectedVersion: z.number().int().nullable(),
  /**
   * The key as it is after the operation (rotated: the new record, its replaced secret as
   * `previousSecret` while a grace runs); null for `not_found`. Its `currentSecret` and
   * `previousSecret` name the clients that use it.
   */
  key: ApiKey.nullable(),
  /** The new secret, shown this once (and on a replay of the same Idempotency-Key): `rotated` only, else null. */
  secret: z.string().nullable(),
  /**
   * Whether the key's previous secret was still in use (`previousSecretInUse`) when the operation
   * ran: rotating replaces it, so its clients are cut off at once.
   */
  endsPreviousSecretInUse: z.boolean(),
});
export type BulkRotationItem = z.infer<typeof BulkRotationItem>;

/** The answer of a bulk rotation (extension `bulk_rotation`), and of its dry run. */
export const BulkRotation = z.object({
  object: z.literal("bulk_rotation"),
  dryRun: z.boolean(),
  /** The selectors, as sent. */
  label: z.array(z.string()),
  gracePeriodSeconds: z.number().int(),
  retireWhenIdleSeconds: z.number().int().nullable(),
  inUseWarningSeconds: z.number().int().nullable(),
  /**
   * The gateway's request id of the request that ran the operation: every `rotate` audit event it
   * made carries it (and the request's Idempotency-Key). A replay answers the first run's.
   */
  requestId: z.string(),
  /** When the operation ran. */
  ranAt: Timestamp,
  /** Every key the operation selected or was pinned, in key id order. */
  keys: z.array(BulkRotationItem),
});
export type BulkRotation = z.infer<typeof BulkRotation>;
