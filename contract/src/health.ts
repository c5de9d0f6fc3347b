import { z } from "zod";

/**
 * The answer of `GET /healthz` (the process is alive) and of `GET /readyz` when the gateway can
 * serve (its database answers at the current schema and it is not shutting down). A gateway that
 * is not ready answers 503 with the error envelope (code `not_ready`) instead.
 */
export const HealthStatus = z.object({
  status: z.literal("ok"),
});
export type HealthStatus = z.infer<typeof HealthStatus>;
