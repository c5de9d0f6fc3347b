/**
 * Spend holdings (gateway/src/metering/shared/holdings.ts, from its build) against a lease renewal
 * that crosses a grant: the renewal lists this process's rows when it is sent, so a holding granted
 * after that is not among the rows it renews — and must not be taken for one that ran out (it was
 * dropped, and its row held the key's budget until its lease lapsed while the process took another).
 * The batcher here grants by hand; holdings across real processes on PostgreSQL are in
 * postgres-cluster.test.ts.
 */
import type { NewLogEntry } from "@gateway-keys/gateway";
import type { SpendBatcher } from "@gateway-keys/gateway/dist/metering/shared/batcher";
import { SpendHoldings } from "@gateway-keys/gateway/dist/metering/shared/holdings";

test("a holding granted while a lease renewal was in flight is kept: that renewal did not ask for its row", async () => {
  let grant: ((id: string) => void) | undefined;
  let ownRows = 0;
  const batcher = {
    reserve: (reserve: { holding: string | null }) => {
      if (reserve.holding === null) return Promise.resolve(`own-${++ownRows}`);
      return new Promise<string>((resolve) => {
        grant = resolve;
      });
    },
    settle: async () => undefined,
    release: async () => undefined,
  } as unknown as SpendBatcher;
  const holdings = new SpendHoldings(batcher, { subscribe: () => () => undefined }, async () => null, { leaseMs: 60_000 });

  // The key's first request reserves a row of its own and asks for a holding.
  const first = await holdings.reserve("key_1", 10n, 0);
  expect(first).toEqual({ row: "own-1", drawn: null });
  expect(grant).toBeDefined();
  // A renewal is sent after the holding was asked for, listing the rows live then (not the holding's)...
  const renewalSentAt = Date.now() + 1;
  const asked = new Set(holdings.liveRows());
  expect(asked).toEqual(new Set(["own-1"]));
  // ...the holding is granted, and then the renewal answers: it renewed what it asked for.
  grant!("holding-1");
  await new Promise((resolve) => setImmediate(resolve));
  holdings.renewed(renewalSentAt, asked, asked);

  // The next request draws on the holding: no row of its own, no second holding.
  const second = await holdings.reserve("key_1", 10n, 0);
  expect(second).toEqual({ row: "holding-1", drawn: 10n });
  expect(ownRows).toBe(1);
  expect(holdings.liveRows()).toEqual(["holding-1", "own-1"]);

  await holdings.settle(first!, { keyId: "key_1" } as NewLogEntry, "succeeded");
  await holdings.settle(second!, { keyId: "key_1" } as NewLogEntry, "succeeded");
  await holdings.close();
});
