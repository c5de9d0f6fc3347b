import {
  formatUnits,
  hintOf,
  parseUnits,
  spendWindowOf,
  windowStartOf,
  type ApiKey,
  type ApiKeyWithSecret,
  type CreateApiKeyParams,
  type ResetPeriod,
  type UpdateApiKeyParams,
} from "@gateway-keys/contract";
import { hashesEqual, newId, newSecret, sha256 } from "../crypto";
import { keySpendColumns, keyWindowsOf, storedWindowsOf, wireSpendPolicy, windowStatesOf } from "../metering/spend-windows";
import { GatewayError, versionConflict } from "../errors";
import type { ApiKeyUpdate, NewApiKey, Store, StoredApiKey } from "../store/types";
import { secretUseOf, type SecretFiguresByHash } from "./secret-use";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Reads a key's spend since an instant: the store, or a unit of work's view of it. */
export interface SpendReader {
  spentSince(keyId: string, since: number): Promise<bigint>;
}

/**
 * A reader of the window spend of many keys read at once (the list): one store call for the page,
 * instead of one per key with a reset period.
 */
export async function windowSpendOf(store: Store, keys: readonly StoredApiKey[], now: number): Promise<SpendReader> {
  const asked = keys.flatMap((key) => {
    const periods = new Set([key.resetPeriod, ...keyWindowsOf(key).map((window) => window.resetPeriod)]);
    periods.delete("never");
    return [...periods].map((period) => ({ keyId: key.id, since: windowStartOf(period, now) }));
  });
  const spent = await store.spentSinceEach(asked);
  const bySince = new Map(asked.map((one, i) => [`${one.keyId} ${one.since}`, spent[i]!]));
  return { spentSince: async (keyId, since) => bySince.get(`${keyId} ${since}`) ?? 0n };
}

/** Whether the key's `expiresAt` has passed at `now` (the expiry is exclusive). */
export function isExpired(key: Pick<StoredApiKey, "expiresAt">, now: number): boolean {
  return key.expiresAt !== null && now >= key.expiresAt;
}

/**
 * The wire record of a stored key at `now`: its spend window is the one that holds `now` (read
 * through `spend` for a key with a reset period; a lifetime window is the key's whole spend).
 * Never includes the secret or its hash. Extension `secret_use`: each secret's use as `figures`
 * hold it (none for a key just created).
 */
export async function toWireKey(spend: SpendReader, key: StoredApiKey, now: number, figures: SecretFiguresByHash = new Map()): Promise<ApiKey> {
  const window = spendWindowOf(key.resetPeriod, now, key.createdAt);
  const spentIn = async (start: number, period: ResetPeriod) => (period === "never" ? key.spentMicros : spend.spentSince(key.id, start));
  const windowSpent = formatUnits(await spentIn(window.start, key.resetPeriod));
  const windows = keyWindowsOf(key);
  return {
    object: "api_key",
    keyId: key.id,
    ownerId: key.ownerId,
    name: key.name,
    state: key.state,
    version: key.version,
    hint: key.hint,
    spendPolicy: wireSpendPolicy(windows),
    loggingPolicy: { ...key.loggingPolicy },
    modelPolicy: { mode: key.modelPolicy.mode, modelIds: [...key.modelPolicy.modelIds] },
    rateLimitPolicy: key.rateLimitPolicy === null ? null : { ...key.rateLimitPolicy },
    expiresAt: isoOrNull(key.expiresAt),
    expired: isExpired(key, now),
    labels: { ...key.labels },
    lastUsedAt: isoOrNull(key.lastRequestAt),
    spentUnits: formatUnits(key.spentMicros),
    spendWindow: {
      startedAt: iso(window.startedAt),
      resetsAt: isoOrNull(window.endsAt),
      spentUnits: windowSpent,
    },
    spendWindows: await windowStatesOf(windows, now, key.createdAt, spentIn),
    teamId: key.teamId,
    createdAt: iso(key.createdAt),
    updatedAt: iso(key.updatedAt),
    rotatedAt: isoOrNull(key.rotatedAt),
    revokedAt: isoOrNull(key.revokedAt),
    clientReference: key.clientReference,
    previousSecretExpiresAt: isoOrNull(key.previousSecretExpiresAt),
    budgetAlertThresholds: [...key.alerts.budgetAlertThresholds],
    expiryWarningSeconds: key.alerts.expiryWarningSeconds,
    rotateAfterSeconds: key.alerts.rotateAfterSeconds,
    ...secretUseOf(key, figures, now),
  };
}

/** The wire record plus the secret: the answer of create and rotate, the one time a secret is shown. */
export async function toWireKeyWithSecret(
  spend: SpendReader,
  key: StoredApiKey,
  secret: string,
  now: number,
  figures: SecretFiguresByHash = new Map(),
): Promise<ApiKeyWithSecret> {
  return { ...(await toWireKey(spend, key, now, figures)), secret };
}

/** A new key and its secret, ready to insert. */
export function newApiKey(ownerId: string, params: CreateApiKeyParams, now: number): { key: NewApiKey; secret: string } {
  const secret = newSecret("regular");
  return {
    secret,
    key: {
      id: newId("key"),
      ownerId,
      name: params.name,
      // Extension: a key may be created disabled (default active).
      state: params.state,
      version: 1,
      secretHash: sha256(secret),
      hint: hintOf(secret),
      ...keySpendColumns(storedWindowsOf(params.spendPolicy)),
      // The route checked that the team is the owner's.
      teamId: params.teamId ?? null,
      rateLimitPolicy: params.rateLimitPolicy ?? null,
      // Checked to be in the future by the create itself (assertFutureExpiry), after a replay would have answered.
      expiresAt: params.expiresAt ? Date.parse(params.expiresAt) : null,
      labels: { ...params.labels },
      alerts: {
        budgetAlertThresholds: [...params.budgetAlertThresholds],
        expiryWarningSeconds: params.expiryWarningSeconds ?? null,
        rotateAfterSeconds: params.rotateAfterSeconds ?? null,
      },
      loggingPolicy: { ...params.loggingPolicy },
      modelPolicy: { mode: params.modelPolicy.mode, modelIds: [...params.modelPolicy.modelIds] },
      createdAt: now,
      updatedAt: now,
      rotatedAt: null,
      revokedAt: null,
      clientReference: params.clientReference ?? null,
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      previousSecret: null,
      previousSecretRetiredAt: null,
      previousSecretRetiredReason: null,
    },
  };
}

/** Refuses (400, naming the field) an expiry that is not after `now`; none is fine. */
export function assertFutureExpiry(at: number | null, now: number): void {
  if (at !== null && at <= now) {
    throw new GatewayError(
      "validation_failed",
      `Invalid fields: expiresAt: must be in the future (it is now ${iso(now)}); to stop a key at once, set state "disabled" or revoke it.`,
      { param: "expiresAt" },
    );
  }
}

/**
 * Extension `client_reference`: a create must not give a second live key the reference one already
 * holds. The answer names that key, so a creator that crashed can take it over.
 */
export function assertReferenceFree(existing: StoredApiKey | undefined): void {
  if (!existing) return;
  throw new GatewayError(
    "client_reference_in_use",
    `Key ${existing.id} already holds this clientReference and is not revoked; take that key over, or revoke it and create again.`,
    { param: "clientReference", keyId: existing.id },
  );
}

/** Which of a key's secrets a presented secret is, at `now`. */
export type SecretMatch = "current" | "previous" | "none";

/**
 * Compares a presented secret's hash with the key's current secret and, extension
 * `rotation_grace`, with the secret the last rotation replaced while its grace lasts (the expiry is
 * exclusive). Constant-time on each comparison. An expired previous secret is "none": unknown.
 */
export function matchSecret(key: StoredApiKey, hash: Buffer, now: number): SecretMatch {
  if (hashesEqual(key.secretHash, hash)) return "current";
  if (previousSecretLive(key, now) && hashesEqual(key.previousSecretHash!, hash)) return "previous";
  return "none";
}

/**
 * Whether the key's previous secret still authenticates at `now`: its grace has not ended and,
 * extension `secret_use`, it was not retired (idle, revoked, or replaced by a newer rotation).
 */
export function previousSecretLive(key: Pick<StoredApiKey, "previousSecretHash" | "previousSecretExpiresAt" | "previousSecretRetiredAt">, now: number): boolean {
  return key.previousSecretHash !== null && key.previousSecretExpiresAt !== null && now < key.previousSecretExpiresAt && key.previousSecretRetiredAt === null;
}

/**
 * The checks every change, rotate and revoke makes, in this order: a revoked key refuses all of
 * them (revoke is terminal, so a stale version does not matter), then the version must be current.
 * (An unknown key, or another owner's, was already answered with 404 by the store.)
 */
function assertMutable(current: StoredApiKey, expectedVersion: number): void {
  if (current.state === "revoked") {
    throw new GatewayError("key_revoked", "The key is revoked; a revoked key cannot be changed, rotated or revoked again.");
  }
  if (current.version !== expectedVersion) throw versionConflict("key", expectedVersion, current.version);
}

function unchanged(current: StoredApiKey, now: number): ApiKeyUpdate {
  return {
    name: current.name,
    state: current.state,
    version: current.version + 1,
    secretHash: current.secretHash,
    hint: current.hint,
    spendLimitMicros: current.spendLimitMicros,
    resetPeriod: current.resetPeriod,
    rateLimitPolicy: current.rateLimitPolicy,
    expiresAt: current.expiresAt,
    labels: current.labels,
    alerts: current.alerts,
    loggingPolicy: current.loggingPolicy,
    modelPolicy: current.modelPolicy,
    updatedAt: now,
    rotatedAt: current.rotatedAt,
    revokedAt: current.revokedAt,
    previousSecretHash: current.previousSecretHash,
    previousSecretExpiresAt: current.previousSecretExpiresAt,
    previousSecret: current.previousSecret,
    previousSecretRetiredAt: current.previousSecretRetiredAt,
    previousSecretRetiredReason: current.previousSecretRetiredReason,
    teamId: current.teamId,
    spendWindows: current.spendWindows,
  };
}

/** PATCH: fields present in the body replace the stored ones (policies whole); the version goes up by one. */
export function applyUpdate(current: StoredApiKey, params: UpdateApiKeyParams, now: number): ApiKeyUpdate {
  assertMutable(current, params.expectedVersion);
  const next = unchanged(current, now);
  if (params.name !== undefined) next.name = params.name;
  if (params.state !== undefined) next.state = params.state;
  if (params.spendPolicy !== undefined) {
    Object.assign(next, keySpendColumns(storedWindowsOf(params.spendPolicy)));
  }
  if (params.teamId !== undefined) {
    next.teamId = params.teamId;
  }
  if (params.rateLimitPolicy !== undefined) next.rateLimitPolicy = params.rateLimitPolicy;
  if (params.expiresAt !== undefined) {
    next.expiresAt = params.expiresAt === null ? null : Date.parse(params.expiresAt);
    assertFutureExpiry(next.expiresAt, now);
  }
  if (params.labels !== undefined) next.labels = { ...params.labels };
  if (params.budgetAlertThresholds !== undefined) next.alerts = { ...next.alerts, budgetAlertThresholds: [...params.budgetAlertThresholds] };
  if (params.expiryWarningSeconds !== undefined) next.alerts = { ...next.alerts, expiryWarningSeconds: params.expiryWarningSeconds };
  if (params.rotateAfterSeconds !== undefined) next.alerts = { ...next.alerts, rotateAfterSeconds: params.rotateAfterSeconds };
  if (params.loggingPolicy !== undefined) next.loggingPolicy = { ...params.loggingPolicy };
  if (params.modelPolicy !== undefined) {
    next.modelPolicy = { mode: params.modelPolicy.mode, modelIds: [...params.modelPolicy.modelIds] };
  }
  return next;
}

/** Extension `secret_use`: what a rotate body says of the secret it replaces, besides its grace. */
export interface PreviousSecretOptions {
  retireWhenIdleSeconds?: number;
  inUseWarningSeconds?: number;
}

/**
 * Rotate: a new secret replaces the old. With no grace (the seed's behaviour) the old one stops
 * authenticating with this commit. Extension `rotation_grace`: with `graceMs` > 0 the old secret
 * keeps working until `now + graceMs`. Only the secret this rotation replaces is kept: a secret an
 * earlier rotation replaced stops now, grace or not. Extension `secret_use`: the replaced secret's
 * hint, its idle retirement and when to warn that it is still in use (by default when a quarter of
 * the grace is left) are kept with it.
 */
export function applyRotate(
  current: StoredApiKey,
  expectedVersion: number,
  secret: string,
  now: number,
  graceMs = 0,
  options: PreviousSecretOptions = {},
): ApiKeyUpdate {
  assertMutable(current, expectedVersion);
  const rotated = { ...unchanged(current, now), secretHash: sha256(secret), hint: hintOf(secret), rotatedAt: now };
  const noPrevious = { previousSecret: null, previousSecretRetiredAt: null, previousSecretRetiredReason: null };
  if (graceMs <= 0) return { ...rotated, ...noPrevious, previousSecretHash: null, previousSecretExpiresAt: null };
  const expiresAt = now + graceMs;
  const warningMs = options.inUseWarningSeconds !== undefined ? options.inUseWarningSeconds * 1000 : Math.floor(graceMs / 4);
  return {
    ...rotated,
    ...noPrevious,
    previousSecretHash: current.secretHash,
    previousSecretExpiresAt: expiresAt,
    previousSecret: { hint: current.hint, retireWhenIdleSeconds: options.retireWhenIdleSeconds ?? null, inUseWarningAt: expiresAt - warningMs },
  };
}

/**
 * Revoke: terminal, for the current secret and any previous one alike. The hashes stay so the key is
 * still recognised, and refused, on every call; a grace still running ends now, and the previous
 * secret is recorded as retired by the revoke.
 */
export function applyRevoke(current: StoredApiKey, expectedVersion: number, now: number): ApiKeyUpdate {
  assertMutable(current, expectedVersion);
  const graceEnds = current.previousSecretExpiresAt === null ? null : Math.min(current.previousSecretExpiresAt, now);
  const revoked = { ...unchanged(current, now), state: "revoked" as const, revokedAt: now, previousSecretExpiresAt: graceEnds };
  if (!previousSecretLive(current, now)) return revoked;
  return { ...revoked, previousSecretRetiredAt: now, previousSecretRetiredReason: "revoked" };
}
