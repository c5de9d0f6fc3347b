import { ACCOUNT_PATHS, Principal } from "@gateway-keys/contract";
import { NotFoundError } from "@gateway-keys/sdk";
import { clientFor, type Connection } from "./connection";

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
      .request({ method: "GET", path: ACCOUNT_PATHS.whoami, auth: "provisioning", schema: Principal })
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

/**
 * Whether a connection's credentials belong to another owner than the key's. A 404 alone cannot
 * tell "the key is gone" from "this provisioning key is another owner's": this can, where the
 * gateway offers `whoami`.
 */
export async function isAnotherOwner(connection: Connection, keyOwner: string | undefined): Promise<string | undefined> {
  if (!keyOwner) return undefined;
  const owner = await ownerOf(connection);
  return owner !== undefined && owner !== keyOwner ? owner : undefined;
}
