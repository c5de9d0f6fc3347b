/**
 * What each property of `gatewaykeys:index:Webhook` means, where the shared prose of a key's
 * properties (./schema.ts) does not fit. Types, bounds, enums and defaults come from the contract.
 */
export const WEBHOOK_DESCRIPTIONS: Record<string, string> = {
  url:
    "Where events are POSTed: an http(s) URL without user or password. The gateway refuses loopback, link-local and " +
    "private targets at delivery unless its operator allows them.",
  events: "The event types to receive, at least one, no repeats: key.budget_threshold, key.expiring, key.expired, key.rotation_due, team.budget_threshold, audit.<action>.",
  labelSelector: "Receive only events about keys carrying every one of these labels with these values. Empty: every key, and events about no key.",
  enabled: "Whether deliveries are made.",
  rotationTrigger: "Any value; changing it rotates the signing secret in place (the old one signs beside it for rotationOverlap).",
  rotationOverlap: "How long the replaced signing secret keeps signing after a rotation (`1h`, up to `7d`). Default: the gateway's, a day.",
  connection: "The gateway and owner of this endpoint; left out, the provider configuration applies. A secret.",
  webhookId: "The endpoint's id on the gateway (wh_...); also the resource id.",
  ownerId: "The owner the endpoint belongs to (fixed by the provisioning key).",
  version: "The endpoint's version; goes up on every change and rotation.",
  secretHint: "whsec_ and the last four characters of the current signing secret, safe to show.",
  previousSecretExpiresAt: "Until when the signing secret the last rotation replaced also signs deliveries (ISO 8601).",
  createdAt: "When the endpoint was created (ISO 8601).",
  updatedAt: "When the endpoint last changed (ISO 8601).",
  signingSecret:
    "The signing secret (whsec_..., a secret) receivers verify deliveries with. Absent after an import: the gateway shows a " +
    "secret only when it makes one; change rotationTrigger to have the stack hold one.",
  signingSecretKnown: "Whether signingSecret is the endpoint's current secret: false after an import, or a rotation outside this stack.",
  provisioningKeyHint: "Hint of the provisioning key the endpoint was last managed with.",
  clientReference: "The resource's URN, which names the create across runs so a crash never makes a second endpoint.",
};
