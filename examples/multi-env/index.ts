/**
 * Two owners in one program. Each key names its gateway and provisioning key in its `connection`
 * input, so one stack manages keys of several accounts (or several gateways). A provisioning key
 * acts for exactly one owner, so the key lands on that owner's account.
 *
 * The connection is a secret: the provider stores it encrypted, like the keys' secrets.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "@gateway-keys/provider";

const config = new pulumi.Config();

/** Where an environment's keys live: its own gateway if configured, else `gateway:baseUrl`. */
function connectionOf(environment: string) {
  return {
    baseUrl: config.get(`${environment}BaseUrl`) || undefined,
    provisioningKey: config.requireSecret(`${environment}ProvisioningKey`),
  };
}

const staging = new ApiKey("staging-app", {
  connection: connectionOf("staging"),
  spendPolicy: { limitUnits: config.require("stagingLimitUnits") },
  // Staging keeps request and response content a few days, for debugging.
  loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 3 },
});

const production = new ApiKey("production-app", {
  connection: connectionOf("production"),
  spendPolicy: { limitUnits: "1000" },
  loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
  // Production may call only the models it was tested with.
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
});

export const stagingKeyId = staging.keyId;
export const stagingOwner = staging.ownerId;
export const stagingVersion = staging.version;
export const stagingSecret = staging.secret;
export const productionKeyId = production.keyId;
export const productionOwner = production.ownerId;
export const productionVersion = production.version;
export const productionSecret = production.secret;
