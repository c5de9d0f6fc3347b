import type * as pulumi from "@pulumi/pulumi";
import type { ApiKey, ApiKeyWithSecret } from "@gateway-keys/contract";
import { ConflictError, NotFoundError, ValidationError, type WithResponse } from "@gateway-keys/sdk";
import { adoptKey } from "./adoption";
import { changedFields, changeRequest, createRequest } from "./compare";
import { callOptions, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { derivedIdempotencyKey, gatewayReference } from "./idempotency";
import { keyState } from "./key-state";
import { KeyOperationError } from "./errors";
import { describeCreateFailure, describeFailure, tookOverWarning } from "./messages";
import type { DesiredKey, StoredKey } from "./shapes";

/**
 * Links of the replay chain followed before giving up on derived keys: one per destroy-then-create
 * of the same resource within the gateway's idempotency lifetime (24 h).
 */
const MAX_REPLAY_LINKS = 20;

/**
 * Creates the key, or adopts the one the program names; never makes a second key for one resource.
 *
 * A create is identified across runs by the resource's URN, sent as the key's `clientReference`,
 * and by an Idempotency-Key derived from that reference and the body. So whatever killed an
 * earlier run after the gateway created the key (the CLI, the plugin, the language host, a lost
 * connection), this create either
 * - gets that create's answer replayed, secret included (within the gateway's idempotency
 *   lifetime), and keeps the key as it is; or
 * - is refused with 409 `client_reference_in_use` naming the live key, which it takes over: brought
 *   to what the program declares and rotated, since its secret never reached the state.
 * A replayed key that has been revoked since (a destroy, or outside the stack) does not count: the
 * next Idempotency-Key is derived from the revoked key's id, and a new key is made.
 */
export async function createKey(context: ProviderContext, desired: DesiredKey): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  const connection = context.connections.require(desired.connection);
  if (desired.adoptKeyId) return adoptKey(context, desired.adoptKeyId, desired, connection);
  const client = context.connections.client(connection);
  const body = createRequest(desired);
  if (desired.clientReference !== undefined) body.clientReference = gatewayReference(desired.clientReference);
  /** The key whose revocation moved the chain on: part of the next derived Idempotency-Key. */
  let after: string | null = null;

  for (let link = 0; link <= MAX_REPLAY_LINKS + 2; link++) {
    // Past the chain's end a fresh key per call still keeps retries safe; the reference still finds the key.
    const idempotencyKey: string | undefined = link < MAX_REPLAY_LINKS ? derivedIdempotencyKey("create", { body, after }) : undefined;
    let answer: WithResponse<ApiKeyWithSecret>;
    try {
      answer = await client.apiKeys.create(body, { ...callOptions(connection), ...(idempotencyKey ? { idempotencyKey } : {}) }).withResponse();
    } catch (error) {
      if (error instanceof ConflictError && error.code === "client_reference_in_use" && error.keyId) {
        const taken = await takeOver(context, error.keyId, undefined, desired, connection);
        if (taken) return taken;
        continue; // revoked in the meantime: the reference is free now
      }
      if (error instanceof ValidationError && error.param === "clientReference" && body.clientReference !== undefined) {
        // A gateway without the client_reference extension: the derived Idempotency-Key alone
        // still finds a key an interrupted run made, for as long as the gateway keeps answers.
        delete body.clientReference;
        continue;
      }
      throw describeCreateFailure(desired.name, error, connection);
    }
    const { secret, ...record } = answer.data;
    if (!answer.response.replayed) {
      return { id: record.keyId, outs: keyState(record, connection, { secret, secretKnown: true }, desired) };
    }
    // The answer of a create an earlier run made and never recorded. Its secret is good only if
    // nobody rotated the key since; a key revoked since belongs to a resource that was destroyed.
    const taken = await takeOver(context, record.keyId, { secret, rotatedAt: record.rotatedAt }, desired, connection);
    if (taken) return taken;
    after = record.keyId;
  }
  throw new KeyOperationError(
    `could not create key "${desired.name}": the gateway kept answering with keys that are revoked; run \`pulumi up\` again.`,
  );
}

/**
 * Takes over the live key an interrupted run created for this resource: makes it what the program
 * declares (one PATCH if it differs) and, unless the replayed secret still works, rotates it.
 * Returns undefined when the key is revoked or gone (a new one is to be made).
 */
async function takeOver(
  context: ProviderContext,
  keyId: string,
  replayed: { secret: string; rotatedAt: string | null } | undefined,
  desired: DesiredKey,
  connection: Connection,
): Promise<pulumi.dynamic.CreateResult<StoredKey> | undefined> {
  const client = context.connections.client(connection);
  let record: ApiKey;
  try {
    record = await client.apiKeys.get(keyId, callOptions(connection));
  } catch (error) {
    if (error instanceof NotFoundError && error.code === "key_not_found") return undefined;
    throw describeFailure(keyId, "read", error, 0, connection);
  }
  if (record.state === "revoked") return undefined;
  let secret = replayed !== undefined && record.rotatedAt === replayed.rotatedAt ? replayed.secret : undefined;
  try {
    const changed = changedFields(keyState(record, connection, { secret: undefined, secretKnown: false }, {}), desired);
    if (changed.length > 0) {
      const patch = changeRequest(record.version, changed, desired);
      const idempotencyKey = derivedIdempotencyKey("change", { keyId, body: patch });
      record = await client.apiKeys.update(keyId, patch, { ...callOptions(connection), idempotencyKey });
    }
    if (secret === undefined) {
      // The secret went to a run that died before recording it: nobody can hold it, so no grace.
      const rotate = { expectedVersion: record.version };
      const rotated = await client.apiKeys.rotate(keyId, rotate, { ...callOptions(connection), idempotencyKey: derivedIdempotencyKey("rotate", { keyId, body: rotate }) });
      ({ secret, ...record } = rotated);
      context.diagnostics.warn(tookOverWarning(desired.name, keyId, true), desired.clientReference);
    } else {
      context.diagnostics.warn(tookOverWarning(desired.name, keyId, false), desired.clientReference);
    }
  } catch (error) {
    throw describeFailure(keyId, "take over", error, record.version, connection);
  }
  return { id: keyId, outs: keyState(record, connection, { secret, secretKnown: true }, desired) };
}
