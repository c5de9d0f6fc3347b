import { NotFoundError } from "@gateway-keys/sdk";
import { clientFor, credentialHint, type Connection } from "./connection";
import type { StoredKey } from "./shapes";

const owners = new Map<string, Promise<string | undefined>>();

/**
 * The owner of a connection's provisioning key, from the gateway's `whoami` extension; undefined
 * when the gateway does not offer it (the seed contract does not). Asked once per process.
 */
export function ownerOf(connection: Connection): Promise<string | undefined> {
  const id = `${connection.baseUrl}\n${connection.provisioningKey}`;
  let owner = owners.get(id);
  if (!owner) {
    owner = clientFor(connection)
      .whoami()
      .then((principal) => principal.ownerId)
      .catch((error: unknown) => {
        if (error instanceof NotFoundError && error.code !== "key_not_found") return undefined;
        owners.delete(id);
        throw error;
      });
    owners.set(id, owner);
  }
  return owner;
}

/** Whose key it is, as far as the gateway lets us tell. */
export type Ownership = { kind: "same" } | { kind: "another"; owner: string } | { kind: "unknown" };

/**
 * Whether a connection's credentials are the key's owner's. A 404 alone cannot tell "the key is
 * gone" from "this provisioning key is another owner's": `whoami` can. Without it, only the very
 * credential that last managed the key counts as the owner's.
 */
export async function ownershipOf(connection: Connection, stored: Pick<StoredKey, "ownerId" | "provisioningKeyHint">): Promise<Ownership> {
  const owner = await ownerOf(connection);
  if (owner !== undefined) return owner === stored.ownerId ? { kind: "same" } : { kind: "another", owner };
  return credentialHint(connection) === stored.provisioningKeyHint ? { kind: "same" } : { kind: "unknown" };
}
