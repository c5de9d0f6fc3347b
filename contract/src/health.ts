import { z } from "zod";

/**
 * The answer of `GET /healthz` (the process is alive) and of `GET /readyz` when the gateway can
 * serve (its database answers at the current schema and it is not shutting down). A gateway that
 * is not ready answers 503 with the error envelope (code `not_ready`) instead.
 */
/** The last reload of the gateway's `--config` (SIGHUP or the file watch): applied, or refused with why. */
export const ConfigReload = z.object({
  at: z.string(),
  result: z.enum(["applied", "refused"]),
  /** Why the file was refused, as the gateway would have said at start; null when applied. */
  error: z.string().nullable(),
});
export type ConfigReload = z.infer<typeof ConfigReload>;

/** The `--config` in use: its version (a digest of its content, equal on every process that read the same file), since when, and the last reload. */
export const ConfigStatus = z.object({
  version: z.string(),
  loadedAt: z.string(),
  lastReload: ConfigReload.nullable(),
});
export type ConfigStatus = z.infer<typeof ConfigStatus>;

export const HealthStatus = z.object({
  status: z.literal("ok"),
  /** On `/readyz` of a gateway serving a `--config` (docs/operators/routing.md#reloading-the-config). */
  config: ConfigStatus.optional(),
});
export type HealthStatus = z.infer<typeof HealthStatus>;
