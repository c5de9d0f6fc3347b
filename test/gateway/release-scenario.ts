/**
 * What the release-fixture test writes through a gateway and then reads back: the same account API
 * answers must come out of a database written by the previous release once the current gateway
 * has upgraded it (fixtures/release-*). Runs on a test clock, so every answer is fixed.
 */
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond } from "./helpers";

/** The instant of the scenario's test clock. */
export const SCENARIO_START = Date.UTC(2030, 0, 1);

/** The secrets the scenario made, by role (test secrets of a throw-away fixture). */
export interface ScenarioSecrets {
  limited: string;
  rotatedOld: string;
  rotatedNew: string;
  revoked: string;
}

/** Writes keys of every kind, model requests, a webhook and idempotent replies; returns the secrets. */
export async function writeScenario(gateway: TestGateway): Promise<ScenarioSecrets> {
  const account = accountClient(gateway);
  const must = <T extends { status: number; text: string }>(response: T, status = 200): T => {
    if (response.status !== status) throw new Error(`scenario step answered ${response.status}: ${response.text}`);
    return response;
  };
  const limited = must(
    await account.create(
      {
        name: "limited",
        spendPolicy: { limitUnits: "1.5", currency: "unit" },
        loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 },
        labels: { team: "search" },
        clientReference: "ref-limited",
      },
      "idem-create-limited",
    ),
    201,
  ).body;
  const rotated = must(await account.create({ name: "rotated", modelPolicy: { mode: "all", modelIds: [] } }), 201).body;
  const revoked = must(await account.create({ name: "revoked" }), 201).body;
  must(await respond(gateway, limited.secret, { model: "echo-1", input: "hello", max_output_tokens: 4 }));
  must(await respond(gateway, limited.secret, { model: "echo-1", input: "again" }));
  must(await respond(gateway, rotated.secret));
  const rotation = must(await account.rotate(rotated.keyId, { expectedVersion: 1, gracePeriodSeconds: 3600 })).body;
  must(await respond(gateway, rotation.secret));
  must(await account.revoke(revoked.keyId, { expectedVersion: 1 }));
  must(await account.patch(limited.keyId, { expectedVersion: 1, name: "limited, renamed" }));
  must(
    await call(gateway.baseUrl, "POST", "/v1/account/webhooks", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      body: { url: "https://hooks.example.com/gateway", events: ["key.expiring"] },
    }),
    201,
  );
  await gateway.gateway.app.gateway.flushSecretUse();
  return { limited: limited.secret, rotatedOld: rotated.secret, rotatedNew: rotation.secret, revoked: revoked.secret };
}

/** Where a gateway answers, and a provisioning key of the scenario's owner. */
export interface ScenarioReader {
  baseUrl: string;
  provisioningKey: string;
}

/** The account API's answers about everything the scenario wrote. */
export async function readScenario({ baseUrl, provisioningKey }: ScenarioReader): Promise<Record<string, unknown>> {
  const get = async (path: string) => {
    const response = await call(baseUrl, "GET", path, { bearer: provisioningKey });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  };
  return {
    // One page holds every key of the scenario.
    keys: (await get("/v1/account/api-keys?limit=100")).data,
    usage: await get("/v1/account/usage/summary"),
    logs: await get("/v1/account/logs?limit=100"),
    audit: await get("/v1/account/audit-events?limit=100"),
    auditVerification: await get("/v1/account/audit-events/verify"),
    webhooks: await get("/v1/account/webhooks"),
  };
}
