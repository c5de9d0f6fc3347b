/**
 * Zero-downtime rotation, two ways.
 *
 * `service` is one key whose secret is rotated on a schedule (`rotateAfter`) and on demand (a new
 * `rotationTrigger`). `pulumi preview --diff` names each rotation; after `pulumi up` the stack
 * exports the new secret, and the old one keeps working for `rotationGracePeriod` (the gateway's
 * `rotation_grace` extension), so consumers move over with no request refused.
 *
 * `partner` is an `ApiKeyPair`: two keys taking turns, for gateways that only replace a secret at
 * once. Each new `generation` rotates the key that is not current and makes it current; the
 * secret handed out before keeps working until the generation after.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey, ApiKeyPair } from "@gateway-keys/provider";

const config = new pulumi.Config();

const service = new ApiKey("service", {
  spendPolicy: { limitUnits: "100" },
  rotateAfter: config.require("rotateAfter"),
  rotationGracePeriod: config.require("gracePeriod"),
  rotationTrigger: config.require("serviceRotation"),
});

const partner = new ApiKeyPair("partner", {
  generation: config.requireNumber("partnerGeneration"),
  spendPolicy: { limitUnits: "50" },
});

export const serviceKeyId = service.keyId;
export const serviceHint = service.hint;
export const serviceSecret = service.secret;
export const serviceRotation = service.rotation;
export const servicePreviousSecretExpiresAt = service.previousSecretExpiresAt;
export const partnerCurrent = partner.current;
export const partnerKeyId = partner.keyId;
export const partnerSecret = partner.secret;
