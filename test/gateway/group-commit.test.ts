/**
 * The SQLite store's group commit (gateway/src/store/sqlite/group-commit.ts), from its build: writes
 * that keep arriving share one commit, a lone write does not wait for company, no caller hears
 * "stored" before its write's commit ran, and one bad write fails alone. The commit here records
 * batches instead of writing a database; the store's own behaviour under load (one commit per
 * batch, nothing acknowledged lost under kill -9) is in durability.test.ts.
 */
import { GroupCommitter } from "@gateway-keys/gateway/dist/store/sqlite/group-commit";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A committer whose commits are recorded as the list of writes (their names) each ran. */
function recording(limits = { maxWaitMs: 60_000, maxBatch: 64 }) {
  const batches: string[][] = [];
  const committer = new GroupCommitter<string[]>(
    (writes) => {
      const batch: string[] = [];
      for (const write of writes) write(batch);
      batches.push(batch);
    },
    undefined,
    limits,
  );
  const submit = (name: string) => committer.submit((batch) => batch.push(name));
  return { batches, committer, submit };
}

test("a lone write commits after a turn without company, not after the longest wait", async () => {
  const { batches, submit } = recording({ maxWaitMs: 60_000, maxBatch: 64 });
  const started = performance.now();
  await submit("alone");
  expect(batches).toEqual([["alone"]]);
  // The wait allowed is a minute: resolving at all within the test's time shows it was not taken.
  expect(performance.now() - started).toBeLessThan(1_000);
});

test("writes that keep joining turn after turn share one commit", async () => {
  const { batches, submit } = recording();
  const done: Promise<void>[] = [];
  for (let i = 0; i < 10; i++) {
    done.push(submit(`w${i}`));
    await turn();
  }
  await Promise.all(done);
  expect(batches).toEqual([["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"]]);
});

test("no write is acknowledged before the commit that holds it ran", async () => {
  const { batches, submit } = recording();
  const seen: number[] = [];
  const first = submit("a").then(() => seen.push(batches.length));
  const second = submit("b").then(() => seen.push(batches.length));
  await turn();
  expect(seen).toEqual([]);
  await Promise.all([first, second]);
  expect(seen).toEqual([1, 1]);
  expect(batches).toEqual([["a", "b"]]);
});

test("a batch commits once it holds maxBatch writes, and a batch whose first write waited maxWaitMs commits then", async () => {
  const full = recording({ maxWaitMs: 60_000, maxBatch: 2 });
  await Promise.all(["a", "b", "c", "d", "e"].map(full.submit));
  expect(full.batches).toEqual([["a", "b"], ["c", "d"], ["e"]]);

  const timed = recording({ maxWaitMs: 5, maxBatch: 64 });
  const done: Promise<void>[] = [];
  const started = performance.now();
  // Writes keep joining for about 50 ms: the first batch must not wait that long.
  while (performance.now() - started < 50) {
    done.push(timed.submit(`w${done.length}`));
    await turn();
  }
  await Promise.all(done);
  expect(timed.batches.length).toBeGreaterThan(1);
  expect(timed.batches.flat()).toEqual(done.map((_, i) => `w${i}`));
});

test("a write that throws fails alone: its neighbours commit", async () => {
  const batches: string[][] = [];
  const committer = new GroupCommitter<string[]>((writes) => {
    const batch: string[] = [];
    for (const write of writes) write(batch);
    batches.push(batch);
  });
  const good = committer.submit((batch) => batch.push("good"));
  const bad = committer.submit(() => {
    throw new Error("constraint failed");
  });
  const alsoGood = committer.submit((batch) => batch.push("also good"));
  await expect(bad).rejects.toThrow("constraint failed");
  await expect(good).resolves.toBeUndefined();
  await expect(alsoGood).resolves.toBeUndefined();
  expect(batches).toEqual([["good"], ["also good"]]);
});
