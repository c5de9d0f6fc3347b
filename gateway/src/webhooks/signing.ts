import { createHmac } from "node:crypto";

/**
 * The Standard Webhooks signature of one delivery under each secret: `v1,` and the base64
 * HMAC-SHA256, keyed with the base64-decoded part of the secret after `whsec_`, of
 * `{webhook-id}.{webhook-timestamp}.{body}`. Several secrets (a rotation's overlap) give several
 * signatures, space-separated, any of which a receiver accepts.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
