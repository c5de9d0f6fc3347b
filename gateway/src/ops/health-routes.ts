import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ErrorEnvelope, HealthStatus, NoQuery, type ConfigStatus } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import { databaseFaultReason } from "../store/faults";
import type { Store } from "../store/types";
import type { ServingState } from "./serving-state";

/** A readiness check that waits longer than this for the database counts it as not answering. */
export const READINESS_PING_TIMEOUT_MS = 2000;

/** What the health routes read. */
export interface HealthRouteOptions {
  store: Store;
  serving: ServingState;
  /** The config in use and its last reload, when the gateway serves one. */
  config?: () => ConfigStatus;
}

class PingTimeout extends Error {}

/** The store's ping, failed after `timeoutMs`: a database that hangs is as unready as one that refuses. */
async function pingWithin(store: Store, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PingTimeout(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([store.ping(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /healthz` (the process answers; it never touches the database, so a slow database does
 * not get a live process restarted) and `GET /readyz` (send traffic here: the database answers
 * at the schema this build needs and no shutdown has begun). Both unauthenticated and not rate
 * limited: load balancers call them every few seconds from a few addresses.
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthRouteOptions> = async (app, { store, serving, config }) => {
  const schema = { querystring: NoQuery, response: { 200: HealthStatus, 503: ErrorEnvelope } };

  app.get("/healthz", { schema: { querystring: NoQuery, response: { 200: HealthStatus } } }, async (): Promise<HealthStatus> => ({ status: "ok" }));

  app.get("/readyz", { schema }, async (request): Promise<HealthStatus> => {
    if (serving.draining) throw new GatewayError("not_ready", "The gateway is shutting down; send requests to another instance.");
    try {
      await pingWithin(store, READINESS_PING_TIMEOUT_MS);
    } catch (error) {
      // The cause goes to the log only: a database error may name hosts or users. The kind of
      // fault is safe to say, and tells an operator where to look.
      request.log.warn({ err: error }, "readiness check failed");
      const reason = error instanceof PingTimeout ? error.message : (databaseFaultReason(error) ?? "the database failed, or its schema is not the one this gateway needs (the gateway's log says which)");
      throw new GatewayError("not_ready", `Not ready: ${reason}.`);
    }
    return config ? { status: "ok", config: config() } : { status: "ok" };
  });
};
