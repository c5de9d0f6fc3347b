import type { RouteReadings } from "./strategies";

/**
 * How much one new time to first byte moves a route's average: about the last ten attempts count,
 * so a route that slows down (or recovers) is seen within a few requests.
 */
const LATENCY_SMOOTHING = 0.2;

/**
 * What this process measures of each route, for `least-busy` and `lowest-latency`: its requests
 * in flight (from the attempt's start to the answer's last byte) and a decaying average of its
 * time to first byte. A failure counts as twice the slower of its own time and the average, so a
 * route that fails fast does not look fast. Kept per process: each process balances what it sends.
 */
export class RouteReadingsTable implements RouteReadings {
  readonly #inFlight = new Map<string, number>();
  readonly #latencyMs = new Map<string, number>();

  inFlight(routeId: string): number {
    return this.#inFlight.get(routeId) ?? 0;
  }

  latencyMs(routeId: string): number | undefined {
    return this.#latencyMs.get(routeId);
  }

  started(routeId: string): void {
    this.#inFlight.set(routeId, this.inFlight(routeId) + 1);
  }

  ended(routeId: string): void {
    this.#inFlight.set(routeId, Math.max(0, this.inFlight(routeId) - 1));
  }

  /** One attempt's time to its first byte (or to its failure). */
  measured(routeId: string, ms: number, failed: boolean): void {
    const average = this.#latencyMs.get(routeId);
    const sample = failed ? 2 * Math.max(ms, average ?? 0) : ms;
    this.#latencyMs.set(routeId, average === undefined ? sample : average + LATENCY_SMOOTHING * (sample - average));
  }
}
