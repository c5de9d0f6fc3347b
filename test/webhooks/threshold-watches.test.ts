/**
 * The watches that decide when a budget threshold check reads the database (keys' and teams'
 * alike): not after every charge, but when the estimate may have reached the next threshold, when
 * it is stale, and once more after a burst; a failing database is asked again after the refresh
 * time, never in a loop. The reads are a recording stand-in here; the events themselves are proven
 * through real gateways in test/gateway/teams-enforcement.test.ts and test/webhooks/cluster.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ThresholdWatches, type ThresholdCheck, type WatchedWindow } from "@gateway-keys/gateway/dist/webhooks/threshold-watches";

const REFRESH_MS = 500;
const THRESHOLDS = [0.5, 0.9];
const WINDOW: WatchedWindow = { resetPeriod: "daily", limitMicros: 1_000n, start: 0, thresholds: THRESHOLDS };

/** A database stand-in: what the window holds, each read recorded, and whether reads fail. */
function database() {
  const state = { spent: 0n, reads: 0, failing: false };
  const check = async (_subject: string, window: WatchedWindow): Promise<ThresholdCheck> => {
    state.reads++;
    if (state.failing) throw new Error("database down");
    return { spent: state.spent, crossed: window.thresholds.filter((threshold) => Number(state.spent) >= threshold * Number(window.limitMicros)).length };
  };
  return { state, check };
}

let watches: ThresholdWatches<string> | undefined;
afterEach(() => watches?.close());

test("charges under the next threshold make one read, then one trailing read after the burst, not one each", async () => {
  const { state, check } = database();
  watches = new ThresholdWatches(check, REFRESH_MS);
  for (let i = 0; i < 20; i++) {
    state.spent += 10n;
    watches.charged("team", "team", WINDOW, 10n);
    await sleep(0);
  }
  // The first charge reads (nothing known yet); the other nineteen stay under 50% of 1,000.
  expect(state.reads).toBe(1);
  await sleep(REFRESH_MS * 2);
  expect(state.reads).toBe(2);
});

test("a charge that brings the estimate to the next threshold reads at once", async () => {
  const { state, check } = database();
  watches = new ThresholdWatches(check, 60_000);
  state.spent = 100n;
  watches.charged("team", "team", WINDOW, 100n);
  await sleep(0);
  expect(state.reads).toBe(1);
  state.spent += 450n;
  watches.charged("team", "team", WINDOW, 450n);
  await sleep(0);
  expect(state.reads).toBe(2);
  // 550 read: the first threshold is known to be reached; the next (900) is far, and the refresh time is a minute.
  state.spent += 100n;
  watches.charged("team", "team", WINDOW, 100n);
  await sleep(0);
  expect(state.reads).toBe(2);
});

test("another process's spend is read within the refresh time of this process's next charge", async () => {
  const { state, check } = database();
  watches = new ThresholdWatches(check, REFRESH_MS);
  watches.charged("team", "team", WINDOW, 10n);
  await sleep(0);
  expect(state.reads).toBe(1);
  // Spent elsewhere: this process's estimate does not know it, so only the trailing read finds it.
  state.spent = 950n;
  watches.charged("team", "team", WINDOW, 10n);
  await sleep(0);
  expect(state.reads).toBe(1);
  await sleep(REFRESH_MS * 2);
  expect(state.reads).toBe(2);
});

test("a failing read is tried again after the refresh time, not in a loop", async () => {
  const { state, check } = database();
  watches = new ThresholdWatches(check, REFRESH_MS);
  state.failing = true;
  // Over the first threshold: every decision would read at once.
  state.spent = 600n;
  watches.charged("team", "team", WINDOW, 600n);
  await sleep(REFRESH_MS / 2);
  expect(state.reads).toBe(1);
  await sleep(REFRESH_MS);
  expect(state.reads).toBe(2);
  // Back: the next retry reads it, and then nothing is left to check.
  state.failing = false;
  await sleep(REFRESH_MS);
  expect(state.reads).toBe(3);
  await sleep(REFRESH_MS * 2);
  expect(state.reads).toBe(3);
});

test("a new window, limit or list of thresholds starts the watch again", async () => {
  const { state, check } = database();
  watches = new ThresholdWatches(check, 60_000);
  watches.charged("team", "team", WINDOW, 10n);
  await sleep(0);
  expect(state.reads).toBe(1);
  watches.charged("team", "team", { ...WINDOW, start: 86_400_000 }, 10n);
  await sleep(0);
  expect(state.reads).toBe(2);
  watches.charged("team", "team", { ...WINDOW, start: 86_400_000, limitMicros: 2_000n }, 10n);
  await sleep(0);
  expect(state.reads).toBe(3);
  watches.charged("team", "team", { ...WINDOW, limitMicros: 2_000n, start: 86_400_000, thresholds: [0.5] }, 10n);
  await sleep(0);
  expect(state.reads).toBe(4);
});
