import { hintOf, SCOPES, type Scope } from "@gateway-keys/contract";
import { newId, newSecret, sha256 } from "../crypto";
import type { Store } from "../store/types";

/** Owner ids: 1 to 64 characters, letters, digits and `_ . : @ -`, starting with a letter or digit. */
export const OWNER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$/;

/** Options of {@link createProvisioningKey}. */
export interface CreateProvisioningKeyOptions {
  /** The one account or organisation the key acts for. */
  ownerId: string;
  /** Scopes the key carries; default all of `keys:read`, `keys:write`, `usage:read`. */
  scopes?: readonly Scope[];
  /** Source of the creation time; default the system clock. */
  clock?: () => Date;
}

/** A provisioning key just created. `secret` is shown this once; only its hash is stored. */
export interface CreatedProvisioningKey {
  id: string;
  ownerId: string;
  scopes: Scope[];
  /** Prefix and last four characters of the secret. */
  hint: string;
  createdAt: string;
  secret: string;
}

/**
 * Creates a provisioning key bound to one owner, for `/v1/account/*`. There is deliberately no
 * HTTP endpoint for this: whoever can run it holds the database, which is the root of trust.
 * @throws TypeError when the owner id or a scope is not valid.
 */
export async function createProvisioningKey(store: Store, options: CreateProvisioningKeyOptions): Promise<CreatedProvisioningKey> {
  const { ownerId } = options;
  if (typeof ownerId !== "string" || !OWNER_ID_PATTERN.test(ownerId)) {
    throw new TypeError("ownerId must be 1 to 64 characters: letters, digits and _ . : @ -, starting with a letter or digit");
  }
  const scopes = [...new Set(options.scopes ?? SCOPES)];
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new TypeError(`unknown scope ${JSON.stringify(scope)}; expected some of ${SCOPES.join(", ")}`);
    }
  }
  if (scopes.length === 0) throw new TypeError(`a provisioning key needs at least one scope of ${SCOPES.join(", ")}`);
  const secret = newSecret("provisioning");
  const createdAt = (options.clock ?? (() => new Date()))().getTime();
  const key = { id: newId("pk"), ownerId, secretHash: sha256(secret), hint: hintOf(secret), scopes, createdAt, revokedAt: null };
  await store.insertProvisioningKey(key);
  return { id: key.id, ownerId, scopes, hint: key.hint, createdAt: new Date(createdAt).toISOString(), secret };
}
