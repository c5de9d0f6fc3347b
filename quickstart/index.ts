/**
 * The quickstart: one gateway API key whose spend limit and rotation come from stack config.
 * The gateway and provisioning key come from `gateway:baseUrl` and the secret
 * `gateway:provisioningKey` (see ../Pulumi.yaml).
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "@gateway-keys/provider";

const config = new pulumi.Config();

const key = new ApiKey("quickstart", {
  spendPolicy: { limitUnits: config.require("limitUnits") },
  loggingPolicy: { retentionDays: 7 },
  // Any change of this value issues a new secret for the same key; the old one stops working at once.
  rotationTrigger: config.require("rotation"),
});

export const keyId = key.keyId;
export const version = key.version;
/** Safe to show: prefix and last four characters. */
export const hint = key.hint;
/** Encrypted in the stack's state; read it with `pulumi stack output secret --show-secrets`. */
export const secret = key.secret;
