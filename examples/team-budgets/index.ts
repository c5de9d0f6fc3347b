/**
 * Keys as a platform team hands them out: each team's service key has a budget that resets on the
 * calendar (UTC), a rate limit that holds across every gateway process, and labels to find and bill
 * it by; a contractor's key expires on its own. Every one of these is an in-place update when it
 * changes, and `pulumi preview --diff` names the field.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "@gateway-keys/provider";

const config = new pulumi.Config();

const search = new ApiKey("search-service", {
  name: "search service",
  // Resets at 00:00 UTC on the 1st; a request without an output bound is served within what is left.
  spendPolicy: { limitUnits: config.get("searchMonthlyUnits") ?? "500", resetPeriod: "monthly" },
  rateLimitPolicy: { requestsPerMinute: 600, tokensPerMinute: 200_000, maxConcurrentRequests: 20 },
  labels: { team: "search", env: "prod", "cost-center": "cc-104" },
});

const batch = new ApiKey("batch-embeddings", {
  name: "nightly embeddings",
  // A daily budget for a nightly job: a runaway run stops at the day's limit.
  spendPolicy: { limitUnits: "40", resetPeriod: "daily" },
  rateLimitPolicy: { maxConcurrentRequests: 4 },
  labels: { team: "search", env: "prod", job: "embeddings" },
});

const contractor = new ApiKey("contractor", {
  name: "contractor (external)",
  spendPolicy: { limitUnits: "25", resetPeriod: "weekly" },
  // Stops authenticating at this instant (401 key_expired); extend it by changing the date.
  expiresAt: config.get("contractorExpiresAt") ?? "2099-01-01T00:00:00Z",
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
  labels: { team: "partners", env: "prod" },
});

export const searchKeyId = search.keyId;
export const searchSecret = search.secret;
export const batchKeyId = batch.keyId;
export const batchSecret = batch.secret;
export const contractorKeyId = contractor.keyId;
export const contractorSecret = contractor.secret;
export const contractorExpiresAt = contractor.expiresAt;
