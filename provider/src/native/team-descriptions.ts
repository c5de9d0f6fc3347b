/**
 * What each property of `gatewaykeys:index:Team` means, where the shared prose of a key's
 * properties (./schema.ts) does not fit. Types, bounds, enums and defaults come from the contract.
 */
export const TEAM_DESCRIPTIONS: Record<string, string> = {
  name: "Human-readable label. Default: the resource name. A change is an in-place update.",
  labels: "Labels to find and bill teams by: up to 32 names (lowercase, digits, ._/-) to strings of up to 256 characters.",
  spendPolicy:
    "The team's spending cap across all its keys: one window (limitUnits, resetPeriod) or several (windows). A request beyond it is " +
    "refused with 402 team_budget_exceeded naming the team and the window. Left out, no cap.",
  rateLimitPolicy: "The team's rate limits across all its keys and every gateway process; 429 team_rate_limited with Retry-After beyond them. Left out, none.",
  modelPolicy: "The model ceiling: a key in the team may call only the models the team allows (and its own policy allows).",
  budgetAlertThresholds:
    "Fractions of each spend window's limit at which the gateway sends a team.budget_threshold webhook event, once per window each: " +
    "greater than 0, at most 1, ascending, up to 10. Default none.",
  connection: "The gateway and owner of this team; left out, the provider configuration applies. A secret.",
  teamId: "The team's id on the gateway (team_...); also the resource id. Give it to a key as teamId.",
  ownerId: "The owner the team belongs to (fixed by the provisioning key).",
  version: "The team's version; goes up on every change.",
  spendWindows: "Each spend window with what the team spent in it, as of the last create, update or refresh (read-only).",
  keyCount: "How many keys belong to the team, as of the last create, update or refresh (read-only).",
  createdAt: "When the team was created (ISO 8601).",
  updatedAt: "When the team last changed (ISO 8601).",
  provisioningKeyHint: "Hint of the provisioning key the team was last managed with.",
  clientReference: "The resource's URN, which names the create across runs so a crash never makes a second team.",
};
