import { ApiKey as ApiKeyRecord } from "@gateway-keys/contract";
import { z } from "zod";
import { ApiKeyInputs, type StoredKey } from "../runtime/shapes";

/**
 * The outputs of `gatewaykeys:index:ApiKey` as a zod schema, for the package schema only: the
 * contract's key record (the fields the stack keeps, exactly as the runtime's `keyState` writes
 * them), the provider's own fields, and the inputs the stack carries. The runtime's `StoredKey`
 * type is what the operations return; the assertion below fails the build if the two drift apart.
 */
export const ApiKeyOutputs = z.object({
  ...ApiKeyRecord.pick({
    keyId: true,
    version: true,
    hint: true,
    state: true,
    ownerId: true,
    name: true,
    loggingPolicy: true,
    modelPolicy: true,
    createdAt: true,
    updatedAt: true,
    rotatedAt: true,
    previousSecretExpiresAt: true,
  }).shape,
  spendPolicy: ApiKeyRecord.shape.spendPolicy.unwrap().optional(),
  secret: z.string().optional(),
  secretKnown: z.boolean(),
  baseUrl: z.string(),
  provisioningKeyHint: z.string(),
  ...ApiKeyInputs.pick({
    rotationTrigger: true,
    rotateAfter: true,
    rotationGracePeriod: true,
    rotation: true,
    clientReference: true,
    connection: true,
  }).shape,
});

/** Compile-time proof that every output field the runtime stores is in the schema, with the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const outputsMatchStoredKey: Same<keyof z.output<typeof ApiKeyOutputs>, keyof StoredKey> = true;
void outputsMatchStoredKey;
