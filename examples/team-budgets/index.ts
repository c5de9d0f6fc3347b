/**
 * Keys as a platform team hands them out: each team's service key has a budget that resets on the
 * calendar (UTC), a rate limit that holds across every gateway process, and labels to find and bill
 * it by; a contractor's key expires on its own. The gateway warns before each bites: at 80% and 100%
 * of a budget, and a week before the contractor's key expires, a signed event goes to the team's
 * webhook endpoint. Every one of these is an in-place update when it changes, and
 * `pulumi preview --diff` names the field.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey, Webhook } from "@gateway-keys/provider";

const config = new pulumi.Config();

const search = new ApiKey("search-service", {
  name: "search service",
  // Resets at 00:00 UTC on the 1st; a request without an output bound is served within what is left.
  spendPolicy: { limitUnits: config.get("searchMonthlyUnits") ?? "500", resetPeriod: "monthly" },
  rateLimitPolicy: { requestsPerMinute: 600, tokensPerMinute: 200_000, maxConcurrentRequests: 20 },
  labels: { team: "search", env: "prod", "cost-center": "cc-104" },
  // `key.budget_threshold` at 80% and at 100% of each month's budget, once a month each.
  budgetAlertThresholds: [0.8, 1],
});

const batch = new ApiKey("batch-embeddings", {
  name: "nightly embeddings",
  // A daily budget for a nightly job: a runaway run stops at the day's limit.
  spendPolicy: { limitUnits: "40", resetPeriod: "daily" },
  rateLimitPolicy: { maxConcurrentRequests: 4 },
  labels: { team: "search", env: "prod", job: "embeddings" },
  budgetAlertThresholds: [0.5, 0.9],
});

const contractor = new ApiKey("contractor", {
  name: "contractor (external)",
  spendPolicy: { limitUnits: "25", resetPeriod: "weekly" },
  // Stops authenticating at this instant (401 key_expired); extend it by changing the date.
  expiresAt: config.get("contractorExpiresAt") ?? "2099-01-01T00:00:00Z",
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
  labels: { team: "partners", env: "prod" },
  // `key.expiring` a week before `expiresAt`.
  expiryWarning: "7d",
});

// Where the platform team hears of it: budget and expiry alerts of every key, signed (Standard
// Webhooks) with a secret the stack keeps encrypted.
const alerts = new Webhook("platform-alerts", {
  url: config.get("alertsUrl") ?? "https://hooks.example.com/gateway-keys",
  events: ["key.budget_threshold", "key.expiring", "key.expired"],
});

export const searchKeyId = search.keyId;
export const searchSecret = search.secret;
export const batchKeyId = batch.keyId;
export const batchSecret = batch.secret;
export const contractorKeyId = contractor.keyId;
export const contractorSecret = contractor.secret;
export const contractorExpiresAt = contractor.expiresAt;
export const alertsWebhookId = alerts.webhookId;
export const alertsSigningSecret = alerts.signingSecret;
