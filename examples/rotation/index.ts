/**
 * Rotation through a stack update. Each key's `rotationTrigger` comes from config; changing it
 * rotates that key's secret in place: `pulumi preview --diff` shows an update of `rotationTrigger`
 * (not a replacement), the keyId stays, and the old secret stops working as soon as `up` rotates.
 *
 * Two keys give consumers a key that always works: point them at green, rotate blue, point them at
 * blue, rotate green.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "@gateway-keys/provider";

const config = new pulumi.Config();

const blue = new ApiKey("blue", {
  spendPolicy: { limitUnits: "100" },
  rotationTrigger: config.require("blueRotation"),
});
const green = new ApiKey("green", {
  spendPolicy: { limitUnits: "100" },
  rotationTrigger: config.require("greenRotation"),
});

export const blueKeyId = blue.keyId;
export const blueHint = blue.hint;
export const blueRotatedAt = blue.rotatedAt;
export const blueSecret = blue.secret;
export const greenKeyId = green.keyId;
export const greenHint = green.hint;
export const greenRotatedAt = green.rotatedAt;
export const greenSecret = green.secret;
