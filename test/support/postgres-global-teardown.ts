/** Global teardown of the `postgres` jest project: stops the server the setup started, removing its files. */
export default async function stopTestPostgres(): Promise<void> {
  await globalThis.gatewayTestPostgres?.stop();
  globalThis.gatewayTestPostgres = undefined;
}
