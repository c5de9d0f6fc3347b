import { NotFoundError } from "@gateway-keys/sdk";
import { callOptions, credentialHint, settingKey, type Connection, type Connections } from "./connection";
import { KeyOperationError } from "./errors";
import type { StoredKey } from "./shapes";

/** Whose key it is, as far as the gateway lets us tell. */
export type Ownership = { kind: "same" } | { kind: "another"; owner: string } | { kind: "unknown" };

/** What the gateway says about whose provisioning keys this provider uses, asked once per key. */
export class Owners {
  readonly #connections: Connections;
  readonly #owners = new Map<string, Promise<string | undefined>>();

  constructor(connections: Connections) {
    this.#connections = connections;
  }

  /**
   * The owner of a connection's provisioning key, from the gateway's `whoami` extension; undefined
   * when the gateway does not offer it (the seed contract does not).
   */
  ownerOf(connection: Connection): Promise<string | undefined> {
    const id = `${connection.baseUrl}\n${connection.provisioningKey}`;
    let owner = this.#owners.get(id);
    if (!owner) {
      owner = this.#connections
        .client(connection)
        .whoami(callOptions(connection))
        .then((principal) => principal.ownerId)
        .catch((error: unknown) => {
          if (error instanceof NotFoundError && error.code !== "key_not_found") return undefined;
          this.#owners.delete(id);
          throw error;
        });
      this.#owners.set(id, owner);
    }
    return owner;
  }

  /**
   * Whether a connection's credentials are the key's owner's. A 404 alone cannot tell "the key is
   * gone" from "this provisioning key is another owner's": `whoami` can. Without it, only the very
   * credential that last managed the key counts as the owner's.
   */
  async ownershipOf(connection: Connection, stored: Pick<StoredKey, "ownerId" | "provisioningKeyHint">): Promise<Ownership> {
    const owner = await this.ownerOf(connection);
    if (owner !== undefined) return owner === stored.ownerId ? { kind: "same" } : { kind: "another", owner };
    return credentialHint(connection) === stored.provisioningKeyHint ? { kind: "same" } : { kind: "unknown" };
  }
}

/**
 * After a 404 for a team or a webhook endpoint the stack holds: passes when the configured
 * credentials are its owner's (so it really is gone), throws otherwise. A 404 alone cannot tell
 * "deleted" from "another owner's provisioning key is configured now", which would drop a live
 * resource from the stack.
 */
export async function requireOwnerOf(
  owners: Owners,
  resource: { kind: "team" | "webhook"; id: string },
  stored: Pick<StoredKey, "ownerId" | "provisioningKeyHint">,
  connection: Connection,
): Promise<void> {
  const ownership = await owners.ownershipOf(connection, stored);
  if (ownership.kind === "same") return;
  const whose =
    ownership.kind === "another"
      ? `belongs to owner ${stored.ownerId}, but the provisioning key configured for ${connection.baseUrl} belongs to owner ${ownership.owner}`
      : `is not visible to the provisioning key configured for ${connection.baseUrl}, which is not the one that managed it, and this gateway cannot say whose it is (no whoami)`;
  throw new KeyOperationError(
    `${resource.kind} ${resource.id} ${whose}; nothing was changed. Configure owner ${stored.ownerId}'s provisioning key ` +
      `(${settingKey(connection.namespace, "provisioningKey")}, or the ${resource.kind}'s \`connection\`) to manage it.`,
  );
}
