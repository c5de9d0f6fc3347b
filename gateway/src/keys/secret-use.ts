import type { PreviousSecretUse, SecretClient, SecretUse } from "@gateway-keys/contract";
import { NO_FIGURES, type PreviousSecretRetireReason, type SecretFigures, type StoredSecretClient } from "../store/secret-use-tables";
import type { PreviousSecretTerms, StoredApiKey } from "../store/types";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** A stored secret's figures by its hash (hex): what {@link secretUseOf} reads a key's from. */
export type SecretFiguresByHash = ReadonlyMap<string, SecretFigures>;

/** A stored client as the wire shows it. */
export function wireClient(client: StoredSecretClient): SecretClient {
  return {
    userAgent: client.userAgent,
    address: client.address,
    firstSeenAt: iso(client.firstSeenAt),
    lastSeenAt: iso(client.lastSeenAt),
    requests: client.requests,
  };
}

function wireUse(hint: string, figures: SecretFigures): SecretUse {
  return {
    hint,
    lastUsedAt: isoOrNull(figures.lastUsedAt),
    requestsSinceRotation: figures.requests,
    clients: figures.clients.map(wireClient),
  };
}

/** What a previous secret's record is made of: its rotation's terms, its grace's end and its retirement. */
export interface PreviousSecretState {
  terms: PreviousSecretTerms;
  expiresAt: number;
  retiredAt: number | null;
  retiredReason: PreviousSecretRetireReason | null;
}

/**
 * A previous secret as the key record shows it at `now`, with when and why it stopped once it did;
 * a grace that ended before the scan recorded it reads as retired "expired" at its end already.
 */
export function previousSecretUseOf(previous: PreviousSecretState, figures: SecretFigures | undefined, now: number): PreviousSecretUse {
  let { retiredAt, retiredReason } = previous;
  if (retiredAt === null && now >= previous.expiresAt) {
    retiredAt = previous.expiresAt;
    retiredReason = "expired";
  }
  return {
    ...wireUse(previous.terms.hint, figures ?? NO_FIGURES),
    expiresAt: iso(previous.expiresAt),
    retireWhenIdleSeconds: previous.terms.retireWhenIdleSeconds,
    inUseWarningAt: iso(previous.terms.inUseWarningAt),
    retiredAt: isoOrNull(retiredAt),
    retiredReason,
  };
}

/**
 * Extension `secret_use`: the key record's `currentSecret` and `previousSecret` at `now`. A previous
 * secret is shown while its rotation's terms are kept (until the next rotation); one a rotation made
 * before the extension is not.
 */
export function secretUseOf(
  key: StoredApiKey,
  figures: SecretFiguresByHash,
  now: number,
): { currentSecret: SecretUse; previousSecret: PreviousSecretUse | null } {
  const currentSecret = wireUse(key.hint, figures.get(key.secretHash.toString("hex")) ?? NO_FIGURES);
  const terms = key.previousSecret;
  if (terms === null || key.previousSecretHash === null || key.previousSecretExpiresAt === null) return { currentSecret, previousSecret: null };
  const previous = { terms, expiresAt: key.previousSecretExpiresAt, retiredAt: key.previousSecretRetiredAt, retiredReason: key.previousSecretRetiredReason };
  return { currentSecret, previousSecret: previousSecretUseOf(previous, figures.get(key.previousSecretHash.toString("hex")), now) };
}
