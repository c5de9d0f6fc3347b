/**
 * The cost of the audit write on the account API's mutations (issue 29): a key create and a key
 * PATCH, each as the one unit of work the gateway runs (idempotency claim, key write, reply
 * record), measured with and without the audit event (hash-chained, with its head, and the
 * `audit.<action>` outbox check) in the same run, on a SQLite file and on PostgreSQL. The two
 * variants take turns in batches, so a slower spell of this shared machine falls on both.
 *
 * Run: npm run bench -- audit-cost      (BENCH_OPS=N per variant and operation, default 400)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateApiKeyRequest } from "@gateway-keys/contract";
import { openPostgresStore, openSqliteStore, type Store, type StoredApiKey } from "@gateway-keys/gateway";
import { keyChanges } from "@gateway-keys/gateway/dist/audit/key-changes.js";
import { recordChange } from "@gateway-keys/gateway/dist/audit/record.js";
import { applyUpdate, newApiKey } from "@gateway-keys/gateway/dist/keys/key-records.js";
import { postgresUnavailableReason, startPostgres } from "@gateway-keys/testkit/postgres";
import { median, printTable } from "./lib/report.ts";

const OPS = Number(process.env.BENCH_OPS ?? 400);
const BATCH = 25;
const ORIGIN = { actor: { kind: "provisioning_key", id: "pk_bench", hint: "gwp_...bench" }, idempotencyKey: "bench", requestId: "req-bench" } as const;

type Variant = "baseline" | "audited";

/** One mutation as the gateway runs it: claim the idempotency key, write, (audit), record the reply. */
async function mutate(store: Store, variant: Variant, n: number, write: (tx: Parameters<Parameters<Store["transaction"]>[0]>[0]) => Promise<{ before: StoredApiKey | null; after: StoredApiKey; action: string }>) {
  const scope = { ownerId: "bench-owner", method: "POST", operation: "/bench {}", key: `${variant}-${n}-${Math.random()}` };
  await store.transaction(async (tx) => {
    await tx.claimIdempotencyKey({ ...scope, fingerprint: Buffer.alloc(32), now: Date.now(), expiresAt: Date.now() + 86_400_000 });
    const { before, after, action } = await write(tx);
    if (variant === "audited") {
      await recordChange(
        tx,
        { ownerId: after.ownerId, action, keyId: after.id, webhookId: null, versionBefore: before?.version ?? null, versionAfter: after.version, changes: keyChanges(before, after), time: Date.now() },
        ORIGIN,
        after.labels,
      );
    }
    await tx.completeIdempotencyKey(scope, { status: 200, sealedBody: Buffer.alloc(200) });
  });
}

/** Median milliseconds per create and per PATCH, for each variant, batches taking turns. */
async function measure(store: Store): Promise<Record<`${Variant} ${"create" | "patch"}`, number>> {
  const samples: Record<string, number[]> = { "baseline create": [], "audited create": [], "baseline patch": [], "audited patch": [] };
  const params = CreateApiKeyRequest.parse({ name: "bench", labels: { team: "bench" }, spendPolicy: { limitUnits: "10" } });
  for (let done = 0; done < OPS; done += BATCH) {
    for (const variant of ["baseline", "audited"] as const) {
      const keys: StoredApiKey[] = [];
      for (let i = 0; i < BATCH; i++) {
        const start = performance.now();
        await mutate(store, variant, done + i, async (tx) => {
          const after = await tx.insertApiKey(newApiKey("bench-owner", params, Date.now()).key);
          keys.push(after);
          return { before: null, after, action: "create" };
        });
        samples[`${variant} create`]!.push(performance.now() - start);
      }
      for (const [i, key] of keys.entries()) {
        const start = performance.now();
        await mutate(store, variant, done + i, async (tx) => {
          const before = (await tx.getApiKey("bench-owner", key.id))!;
          const after = await tx.updateApiKey(key.id, before.version, applyUpdate(before, { expectedVersion: before.version, name: `bench ${i}` }, Date.now()));
          return { before, after, action: "update" };
        });
        samples[`${variant} patch`]!.push(performance.now() - start);
      }
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])) as never;
}

function row(storeName: string, figures: Awaited<ReturnType<typeof measure>>) {
  return (["create", "patch"] as const).map((op) => ({
    store: storeName,
    operation: op,
    "baseline (ms)": figures[`baseline ${op}`].toFixed(3),
    "audited (ms)": figures[`audited ${op}`].toFixed(3),
    ratio: (figures[`audited ${op}`] / figures[`baseline ${op}`]).toFixed(2),
  }));
}

export async function main(): Promise<void> {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-audit-"));
  const sqlite = openSqliteStore(join(dir, "gateway.db"));
  try {
    rows.push(...row("sqlite (file, fsync per commit)", await measure(sqlite)));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const unavailable = postgresUnavailableReason();
  if (unavailable) console.log(`PostgreSQL left out: ${unavailable}`);
  else {
    const server = await startPostgres();
    const store = await openPostgresStore(await server.createDatabase());
    try {
      rows.push(...row("postgres", await measure(store)));
    } finally {
      await store.close();
      await server.stop();
    }
  }
  printTable(`audit write cost: median per operation over ${OPS} operations per variant (one unit of work each, sequential)`, rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
