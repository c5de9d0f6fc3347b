/**
 * The key cache under a store shared by many processes: it follows the store's key-change feed,
 * and trusts nothing it cached while the feed is interrupted. The store here is a stand-in that
 * counts look-ups (a real PostgreSQL feed is driven in postgres-cluster.test.ts); the cache is the
 * gateway's own, from its build.
 */
import { KeyCache } from "@gateway-keys/gateway/dist/store/key-cache";
import type { KeyChangeListener, Store, StoredApiKey } from "@gateway-keys/gateway";

const HASH = Buffer.alloc(32, 7);

function storeWithFeed() {
  const key = { id: "key_1", secretHash: HASH, state: "active" } as StoredApiKey;
  let listener: KeyChangeListener | undefined;
  let pending: Array<() => void> = [];
  const store = {
    lookups: 0,
    /** Holds look-ups until {@link release}, to interleave them with feed events. */
    hold: false,
    findApiKeyByHash: async () => {
      store.lookups++;
      if (store.hold) await new Promise<void>((resolve) => pending.push(resolve));
      return key;
    },
    keyChanges: {
      subscribe: (given: KeyChangeListener) => {
        listener = given;
        return () => {
          listener = undefined;
        };
      },
    },
    release() {
      for (const resolve of pending) resolve();
      pending = [];
    },
    feed: () => listener!,
  };
  return store;
}

const asStore = (fake: ReturnType<typeof storeWithFeed>) => fake as unknown as Store;

test("a cached key is read again once the feed says it changed", async () => {
  const fake = storeWithFeed();
  const cache = new KeyCache(asStore(fake));
  await cache.find(HASH);
  await cache.find(HASH);
  expect(fake.lookups).toBe(1);
  fake.feed().changed("key_1");
  await cache.find(HASH);
  expect(fake.lookups).toBe(2);
});

test("while the feed is interrupted every look-up reads the store, and caching resumes with the feed", async () => {
  const fake = storeWithFeed();
  const cache = new KeyCache(asStore(fake));
  await cache.find(HASH);
  fake.feed().interrupted();
  await cache.find(HASH);
  await cache.find(HASH);
  expect(fake.lookups).toBe(3);
  fake.feed().resumed();
  await cache.find(HASH);
  await cache.find(HASH);
  expect(fake.lookups).toBe(4);
});

test("a look-up in flight when the feed is interrupted is not cached, even once the feed is back", async () => {
  const fake = storeWithFeed();
  const cache = new KeyCache(asStore(fake));
  fake.hold = true;
  const inFlight = cache.find(HASH);
  fake.feed().interrupted();
  fake.feed().resumed();
  fake.release();
  await inFlight;
  fake.hold = false;
  await cache.find(HASH);
  expect(fake.lookups).toBe(2);
});

test("closing the cache stops its subscription", async () => {
  const fake = storeWithFeed();
  const cache = new KeyCache(asStore(fake));
  cache.close();
  expect(fake.feed()).toBeUndefined();
});
