/**
 * One API key for a CI pipeline: capped spend, request logs kept two weeks without their content.
 * Changing the cap or the retention is an in-place update: same key, same secret, version + 1.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "@gateway-keys/provider";

const config = new pulumi.Config();

const ci = new ApiKey("ci", {
  name: "ci pipeline",
  spendPolicy: { limitUnits: config.require("limitUnits") },
  loggingPolicy: {
    storeRequest: false,
    storeResponse: false,
    retentionDays: config.requireNumber("retentionDays"),
  },
});

export const keyId = ci.keyId;
export const version = ci.version;
export const hint = ci.hint;
/** A Pulumi secret: `pulumi stack output secret --show-secrets`. */
export const secret = ci.secret;
