/**
 * Keys as a platform team hands them out, budgeted per team: the search team gets a daily and a
 * monthly budget (UTC calendar windows) and a rate limit shared by all of its keys, the partners'
 * team a monthly budget and a model ceiling; each key keeps limits of its own beside its team's. A
 * request is served only when the key and its team, every window, afford it, across every gateway
 * process. The gateway warns before a budget bites: at 80% and 100% of a team's window or a key's
 * budget, and a week before the contractor's key expires, a signed event goes to the platform's
 * webhook endpoint. Every one of these is an in-place update when it changes (moving a key to
 * another team too), and `pulumi preview --diff` names the field.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiKey, Team, Webhook } from "@gateway-keys/provider";

const config = new pulumi.Config();

const searchTeam = new Team("search", {
  name: "search",
  // Both windows hold together: at most 100 credits a day, and the month's budget across all of them.
  spendPolicy: {
    windows: [
      { limitUnits: "100", resetPeriod: "daily" },
      { limitUnits: config.get("searchMonthlyUnits") ?? "2000", resetPeriod: "monthly" },
    ],
  },
  // Every key of the team together, across every gateway process.
  rateLimitPolicy: { requestsPerMinute: 600 },
  labels: { "cost-center": "cc-104" },
  // `team.budget_threshold` at 80% and 100% of each window, once per window each.
  budgetAlertThresholds: [0.8, 1],
});

const partnersTeam = new Team("partners", {
  name: "partners",
  spendPolicy: { limitUnits: "100", resetPeriod: "monthly" },
  // The ceiling: a partner's key calls only these models, whatever its own policy says.
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
});

const search = new ApiKey("search-service", {
  name: "search service",
  teamId: searchTeam.teamId,
  // Resets at 00:00 UTC on the 1st; a request without an output bound is served within what is left.
  spendPolicy: { limitUnits: "500", resetPeriod: "monthly" },
  rateLimitPolicy: { requestsPerMinute: 600, tokensPerMinute: 200_000, maxConcurrentRequests: 20 },
  labels: { team: "search", env: "prod", "cost-center": "cc-104" },
  // `key.budget_threshold` at 80% and at 100% of each month's budget, once a month each.
  budgetAlertThresholds: [0.8, 1],
});

const batch = new ApiKey("batch-embeddings", {
  name: "nightly embeddings",
  teamId: searchTeam.teamId,
  // A daily budget for a nightly job: a runaway run stops at the day's limit.
  spendPolicy: { limitUnits: "40", resetPeriod: "daily" },
  rateLimitPolicy: { maxConcurrentRequests: 4 },
  labels: { team: "search", env: "prod", job: "embeddings" },
  budgetAlertThresholds: [0.5, 0.9],
});

const contractor = new ApiKey("contractor", {
  name: "contractor (external)",
  teamId: partnersTeam.teamId,
  spendPolicy: { limitUnits: "25", resetPeriod: "weekly" },
  // Stops authenticating at this instant (401 key_expired); extend it by changing the date.
  expiresAt: config.get("contractorExpiresAt") ?? "2099-01-01T00:00:00Z",
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
  labels: { team: "partners", env: "prod" },
  // `key.expiring` a week before `expiresAt`.
  expiryWarning: "7d",
});

// Where the platform team hears of it: budget alerts of every team and key, expiry alerts, signed (Standard
// Webhooks) with a secret the stack keeps encrypted.
const alerts = new Webhook("platform-alerts", {
  url: config.get("alertsUrl") ?? "https://hooks.example.com/gateway-keys",
  events: ["team.budget_threshold", "key.budget_threshold", "key.expiring", "key.expired"],
});

export const searchTeamId = searchTeam.teamId;
export const searchTeamWindows = searchTeam.spendWindows;
export const partnersTeamId = partnersTeam.teamId;
export const searchKeyId = search.keyId;
export const searchSecret = search.secret;
export const batchKeyId = batch.keyId;
export const batchSecret = batch.secret;
export const contractorKeyId = contractor.keyId;
export const contractorSecret = contractor.secret;
export const contractorExpiresAt = contractor.expiresAt;
export const alertsWebhookId = alerts.webhookId;
export const alertsSigningSecret = alerts.signingSecret;
