import type { CooldownPolicy, RouteHealthRecords } from "../metering/route-health-records";

/**
 * Cooldowns of routes that keep failing (docs/operators/routing.md#cooldowns): `failures` route
 * failures within a window cool a route for a while (the provider's `Retry-After` when it gave
 * one); once the cooldown is over, one request — the probe — is let through, and the route takes
 * full traffic again only when the probe answers. The record is shared by every process serving
 * a database ({@link RouteHealthRecords}); each process reads it into a view, re-read by the first
 * request that finds it older than {@link VIEW_REFRESH_MS} — one round trip at most that often,
 * and none while requests keep it fresh.
 */

/** How old a process's view of which routes cool may be: the longest another process's cooldown goes unseen by a request. */
export const VIEW_REFRESH_MS = 250;

/** What the routing does with a route now. */
export type RouteStanding = "open" | "cooling" | "probe";

/** This process's view of the shared record, and its reports to it. */
export class RouteCooldowns {
  readonly #records: RouteHealthRecords;
  #policy: CooldownPolicy | null;
  readonly #onCooled: (routeId: string) => void;
  #view = new Map<string, number>();
  #readAt = -Infinity;
  #reading: Promise<void> | undefined;

  /** `policy` null: no route is ever skipped for its failures. `onCooled`: a route this process cooled (a metric). */
  constructor(records: RouteHealthRecords, policy: CooldownPolicy | null, onCooled: (routeId: string) => void = () => undefined) {
    this.#records = records;
    this.#policy = policy;
    this.#onCooled = onCooled;
  }

  get enabled(): boolean {
    return this.#policy !== null;
  }

  /** A reloaded config's policy: from the next failure on (the record's counts stay). */
  set policy(policy: CooldownPolicy | null) {
    this.#policy = policy;
  }

  /** The view's re-read when it is older than {@link VIEW_REFRESH_MS} (await it before reading); undefined while it is fresh. */
  fresh(at: number): Promise<void> | undefined {
    if (this.#policy === null || at - this.#readAt < VIEW_REFRESH_MS) return this.#reading;
    return this.refresh(at);
  }

  /** Whether a route is open, cooling (skip it), or due for its probe, per the view. */
  standing(routeId: string, at: number): RouteStanding {
    if (this.#policy === null) return "open";
    const until = this.#view.get(routeId);
    if (until === undefined) return "open";
    return at < until ? "cooling" : "probe";
  }

  /** Until when a cooling route is skipped (ms), per the view. */
  coolingUntil(routeId: string): number | undefined {
    return this.#view.get(routeId);
  }

  /** Every route cooling or waiting for its probe, per the view: the gauge's figures. */
  coolingRoutes(): ReadonlyMap<string, number> {
    return this.#view;
  }

  /** Re-reads the record (one at a time); a record that does not answer leaves the view as it was. */
  refresh(at: number): Promise<void> {
    this.#readAt = at;
    this.#reading ??= this.#records
      .cooling()
      .then(
        (rows) => {
          this.#view = new Map(rows.map((row) => [row.routeId, row.until]));
        },
        () => undefined,
      )
      .finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /** A route failure; `retryAfterMs` is the provider's, when it said. */
  async failed(routeId: string, at: number, retryAfterMs: number | undefined): Promise<void> {
    if (this.#policy === null) return;
    const until = await this.#records.failed(routeId, at, this.#policy, retryAfterMs ?? this.#policy.cooldownMs);
    if (until === null) return;
    if (!this.#view.has(routeId)) this.#onCooled(routeId);
    this.#view.set(routeId, until);
  }

  claimProbe(routeId: string, at: number, leaseMs: number): Promise<boolean> {
    return this.#records.claimProbe(routeId, at, leaseMs);
  }

  async recovered(routeId: string): Promise<void> {
    this.#view.delete(routeId);
    await this.#records.recovered(routeId);
  }
}
