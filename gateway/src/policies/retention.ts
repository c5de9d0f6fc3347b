import type { FastifyBaseLogger } from "fastify";
import type { GatewayContext } from "../context";
import type { PurgedRecords } from "../store/types";

/** What one maintenance pass removed. */
export type MaintenanceResult = PurgedRecords;

/**
 * Deletes request logs past retention, expired idempotency records and webhook deliveries ended
 * more than WEBHOOK_HISTORY_DAYS ago, at the injected clock's time, and forgets idle rate-limit buckets. Logs past retention are already hidden from reads;
 * this reclaims the space and removes the stored content for good.
 */
export function runMaintenance(ctx: GatewayContext): Promise<MaintenanceResult> {
  const now = ctx.now();
  ctx.credentialThrottle.prune(now);
  return ctx.store.purgeExpired(now);
}

/** Runs {@link runMaintenance} every `intervalMs`; returns the function that stops it. */
export function scheduleMaintenance(ctx: GatewayContext, intervalMs: number, log: FastifyBaseLogger): () => void {
  const timer = setInterval(() => {
    runMaintenance(ctx).then(
      (removed) => {
        if (removed.logs > 0 || removed.idempotencyKeys > 0 || removed.webhookDeliveries > 0) log.info(removed, "purged expired records");
      },
      (error: unknown) => log.error({ err: error }, "maintenance failed; it will run again"),
    );
  }, intervalMs);
  // Maintenance must never keep a process alive on its own.
  timer.unref();
  return () => clearInterval(timer);
}
