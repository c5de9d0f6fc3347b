import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import type { ServingState } from "./serving-state";

/** How long a shutdown lets requests in flight finish, unless told otherwise: 30 s. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/** Options of {@link drainApp}. */
export interface DrainOptions {
  /** How long requests in flight (streams included) may take to finish; then their connections are cut. Default 30 000. */
  timeoutMs?: number;
  /**
   * How long the gateway keeps accepting, with `/readyz` answering 503, before it stops: time
   * for a load balancer's health check to see it leave. Default 0.
   */
  delayMs?: number;
}

/** What a drain did. */
export interface DrainResult {
  /** Requests still in flight at the timeout, whose connections were cut; 0 when every one finished. */
  cut: number;
}

/**
 * A graceful shutdown of the app: `/readyz` turns 503 at once; after `delayMs` the listener stops
 * accepting (requests already read are answered, with `Connection: close`); requests in flight,
 * streams included, finish until `timeoutMs`; what is left is cut; then the app's close hooks
 * run. The store is the caller's to close, after this resolves.
 */
export async function drainApp(app: FastifyInstance, serving: ServingState, options: DrainOptions = {}): Promise<DrainResult> {
  const { timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS, delayMs = 0 } = options;
  serving.beginDraining(app.server);
  if (delayMs > 0) await sleep(delayMs);
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    if ((await Promise.race([closed.then(() => "closed" as const), timedOut])) === "closed") return { cut: 0 };
  } finally {
    clearTimeout(timer);
  }
  const cut = serving.inFlight;
  app.log.warn({ cut, timeoutMs }, "drain timeout: cutting the connections of requests still in flight");
  app.server.closeAllConnections();
  await closed;
  return { cut };
}
