import type { CooldownPolicy, CoolingRoute, RouteHealthRecords } from "../../metering/route-health-records";
import type { NamedQuery } from "./statements";

/** Runs one named statement on the store's pool (through its breaker). */
type RunQuery = <Row extends object>(statement: NamedQuery, values: unknown[]) => Promise<{ rows: Row[] }>;

const query = (name: string, text: string): NamedQuery => ({ name: `gateway_${name}`, text });

/** The statements of the routes' cooldowns (migration 13): one round trip each, and only on a failure, a probe, or a view's refresh. */
const SQL = {
  failed: query("route_failed", "SELECT gateway_route_failed($1, $2, $3, $4, $5) AS until"),
  claimProbe: query(
    "route_claim_probe",
    `UPDATE route_health SET probe_until = $2 + $3
    WHERE route = $1 AND cooling_until IS NOT NULL AND cooling_until <= $2 AND probe_until <= $2
    RETURNING route`,
  ),
  recovered: query("route_recovered", "UPDATE route_health SET cooling_until = NULL, failures = 0, probe_until = 0 WHERE route = $1"),
  cooling: query("route_cooling", "SELECT route, cooling_until AS until FROM route_health WHERE cooling_until IS NOT NULL"),
};

/** The cooldowns' record in PostgreSQL, shared by every gateway process serving the database. */
export function postgresRouteHealth(run: RunQuery): RouteHealthRecords {
  return {
    async failed(routeId: string, at: number, policy: CooldownPolicy, cooldownMs: number) {
      const { rows } = await run<{ until: string | null }>(SQL.failed, [routeId, at, policy.failures, Math.round(policy.windowMs), Math.round(cooldownMs)]);
      return rows[0]?.until == null ? null : Number(rows[0].until);
    },
    async claimProbe(routeId: string, at: number, leaseMs: number) {
      const { rows } = await run(SQL.claimProbe, [routeId, at, Math.round(leaseMs)]);
      return rows.length > 0;
    },
    async recovered(routeId: string) {
      await run(SQL.recovered, [routeId]);
    },
    async cooling(): Promise<CoolingRoute[]> {
      const { rows } = await run<{ route: string; until: string }>(SQL.cooling, []);
      return rows.map((row) => ({ routeId: row.route, until: Number(row.until) }));
    },
  };
}
