/**
 * Global setup of the `postgres` jest project: one throw-away PostgreSQL server for the whole run
 * (each test gateway then makes its own database on it: testkit/src/test-gateway.ts). Workers
 * start after this, so they inherit the URL from the environment.
 */
import { startPostgres, type PostgresServer } from "@gateway-keys/testkit/postgres";
import { TEST_POSTGRES_URL_ENV } from "@gateway-keys/testkit/test-gateway";

declare global {
  // Handed from this setup to postgres-global-teardown.ts, which jest runs in the same process.
  var gatewayTestPostgres: PostgresServer | undefined;
}

export default async function startTestPostgres(): Promise<void> {
  const server = await startPostgres();
  globalThis.gatewayTestPostgres = server;
  process.env[TEST_POSTGRES_URL_ENV] = server.url;
}
