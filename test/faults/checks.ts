/**
 * What must hold after any database fault, whichever store: the processes alive and silent about
 * unhandled errors; only the documented statuses, each within the bound; every acknowledged create
 * there exactly once; the metered key charged exactly what the answers said; and, once the
 * database is back, the first requests served.
 */
import { parseUnits } from "@gateway-keys/contract";
import type { GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { call } from "../gateway/helpers";
import { runLoad, statusTable, type Attempt } from "./load";

/** Gateway processes on one database, with the owner's provisioning key and the key the load's chat answers are charged to. */
export interface FaultCluster {
  gateways: GatewayProcess[];
  provisioningKey: string;
  modelKey: string;
  modelKeyId: string;
}

/** One row of the fault table the tests print (quoted in the closing note). */
export interface FaultRow {
  fault: string;
  processes: number;
  statuses: Record<string, number>;
  recoveryMs: number[];
  lost: number;
  duplicated: number;
}

/** Starts the metered key of a cluster whose first gateway printed its provisioning key. */
export async function withMeteredKey(gateways: GatewayProcess[]): Promise<FaultCluster> {
  const provisioningKey = gateways[0]!.provisioningKey!;
  const created = await call(gateways[0]!.url, "POST", "/v1/account/api-keys", {
    bearer: provisioningKey,
    idempotencyKey: "auto",
    body: { name: "metered", spendPolicy: { limitUnits: "1000" } },
  });
  expect(created.status).toBe(201);
  return { gateways, provisioningKey, modelKey: created.body.secret, modelKeyId: created.body.keyId };
}

/** Every key of the owner, through every page. */
async function allKeys(cluster: FaultCluster): Promise<{ keyId: string; name: string }[]> {
  const keys: { keyId: string; name: string }[] = [];
  for (let after: string | null = null; ; ) {
    const path = `/v1/account/api-keys?limit=100${after ? `&after=${after}` : ""}`;
    const page: { status: number; body: any } = await call(cluster.gateways[0]!.url, "GET", path, { bearer: cluster.provisioningKey });
    expect(page.status).toBe(200);
    keys.push(...page.body.data);
    after = page.body.next_cursor;
    if (!page.body.has_more) return keys;
  }
}

/** Polls `/readyz` of each gateway until 200; the milliseconds each took. */
export async function readyAgain(gateways: readonly GatewayProcess[]): Promise<number[]> {
  const started = Date.now();
  return Promise.all(
    gateways.map(async (gateway) => {
      for (;;) {
        const ready = await fetch(`${gateway.url}/readyz`).then((response) => response.status);
        if (ready === 200) return Date.now() - started;
        if (Date.now() - started > 30_000) throw new Error("/readyz did not come back within 30 s of the database's return");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }),
  );
}

/**
 * The checks of the module comment on `attempts`; `boundMs` is the longest any answer may take.
 * Returns the row for the fault table.
 */
export async function expectNothingLost(
  cluster: FaultCluster,
  attempts: readonly Attempt[],
  boundMs: number,
  row: Omit<FaultRow, "statuses" | "lost" | "duplicated">,
): Promise<FaultRow> {
  const statuses = statusTable(attempts);
  for (const gateway of cluster.gateways) {
    const { exitCode, signalCode } = gateway.child;
    // With the end of what it printed, so a process that died says why.
    const lastWords = exitCode !== null || signalCode !== null ? gateway.output().slice(-2000) : undefined;
    expect({ exitCode, signalCode, lastWords }).toEqual({ exitCode: null, signalCode: null, lastWords: undefined });
    expect(gateway.output()).not.toMatch(/Unhandled|uncaught/i);
  }
  const unexpected = attempts.filter((attempt) => !(attempt.status === 200 || attempt.status === 201 || (attempt.status === 503 && attempt.code === "database_unavailable")));
  // Shown without their charges: a bigint cannot cross from a jest worker in a failure report.
  const shown = unexpected.slice(0, 5).map(({ costMicros: _cost, ...attempt }) => attempt);
  expect({ unexpected: shown, statuses }).toEqual({ unexpected: [], statuses });
  for (const refused of attempts.filter((attempt) => attempt.status === 503)) expect(refused.retryAfter).toBe("1");
  expect(Math.max(...attempts.map((attempt) => attempt.ms))).toBeLessThanOrEqual(boundMs);
  // Load ran, and was answered, around the fault.
  expect(attempts.filter((attempt) => attempt.kind === "chat" && attempt.status === 200).length).toBeGreaterThan(0);
  expect(attempts.filter((attempt) => attempt.kind === "create" && attempt.status === 201).length).toBeGreaterThan(0);

  const keys = await allKeys(cluster);
  const byName = new Map<string, string[]>();
  for (const key of keys) byName.set(key.name, [...(byName.get(key.name) ?? []), key.keyId]);
  const acknowledged = attempts.filter((attempt) => attempt.status === 201).map((attempt) => attempt.create!);
  const lost = acknowledged.filter((create) => !(byName.get(create.name) ?? []).includes(create.keyId!));
  const duplicated = [...byName.entries()].filter(([name, ids]) => name.startsWith("load ") && ids.length > 1);
  expect({ lost, duplicated }).toEqual({ lost: [], duplicated: [] });

  // A charge whose commit a fault hid is undone in the background once the database answers
  // again (docs/operators/storage.md#when-the-database-fails): wait a little for it.
  const answered = attempts.reduce((sum, attempt) => sum + (attempt.costMicros ?? 0n), 0n);
  const spent = async () => parseUnits((await call(cluster.gateways[0]!.url, "GET", `/v1/account/api-keys/${cluster.modelKeyId}`, { bearer: cluster.provisioningKey })).body.spentUnits);
  let charged = await spent();
  for (const until = Date.now() + 10_000; charged !== answered && Date.now() < until; charged = await spent()) await sleep(200);
  // As strings: a bigint cannot cross from a jest worker in a failure report.
  expect(String(charged)).toBe(String(answered));
  return { ...row, statuses, lost: lost.length, duplicated: duplicated.length };
}

/** After the return: on every process, a create and a chat answer succeed at the first try. */
export async function expectServing(cluster: FaultCluster): Promise<void> {
  for (const gateway of cluster.gateways) {
    const created = await call(gateway.url, "POST", "/v1/account/api-keys", { bearer: cluster.provisioningKey, idempotencyKey: "auto", body: { name: "after the fault" } });
    expect(created.status).toBe(201);
    const answer = await call(gateway.url, "POST", "/v1/chat/completions", {
      bearer: created.body.secret,
      body: { model: "echo-1", messages: [{ role: "user", content: "back?" }] },
    });
    expect(answer.status).toBe(200);
  }
}

/**
 * Runs the load of `clients` loops around `fault`, which resolves once the database is back
 * (with 1.5 s of load before and after it); returns every attempt.
 */
export async function underLoad(cluster: FaultCluster, fault: (answered: () => readonly Attempt[]) => Promise<void>, clients = 8): Promise<Attempt[]> {
  let endLoad!: () => void;
  const ended = new Promise<void>((resolve) => (endLoad = resolve));
  /** Filled as the answers come: a fault may wait for what the load has seen so far. */
  const answered: Attempt[] = [];
  const loadDone = runLoad({ urls: cluster.gateways.map((gateway) => gateway.url), provisioningKey: cluster.provisioningKey, modelKey: cluster.modelKey }, clients, ended, undefined, answered);
  try {
    await sleep(1500);
    await fault(() => answered);
    await sleep(1500);
  } finally {
    endLoad();
  }
  return loadDone;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
