/** Cursor pagination of the key list: stable under concurrent inserts, bounded page sizes. */
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, expectError } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

beforeAll(async () => {
  gateway = await startTestGateway({ ownerId: "paginated" });
  account = accountClient(gateway);
});
afterAll(() => gateway.stop());

test("paging through 250 keys while more are created concurrently shows each key once, in creation order, with no gaps", async () => {
  const created: string[] = [];
  for (let batch = 0; batch < 25; batch++) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => account.create({ name: `k-${batch}-${i}` })));
    created.push(...answers.map((answer) => answer.body.keyId));
  }
  const before = await account.listAll();
  expect(before.map((key) => key.keyId)).toEqual(expect.arrayContaining(created));

  let creating = true;
  const concurrent: string[] = [];
  const writer = (async () => {
    while (creating) concurrent.push((await account.create({ name: "concurrent" })).body.keyId);
  })();
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const page: any = await account.list(`?limit=7${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(7);
    seen.push(...page.body.data.map((key: { keyId: string }) => key.keyId));
    after = page.body.next_cursor;
    pages++;
  } while (after && pages < 200);
  creating = false;
  await writer;

  expect(new Set(seen).size).toBe(seen.length);
  // Everything that existed before paging started, in order, with nothing missing between.
  expect(seen.slice(0, before.length)).toEqual(before.map((key) => key.keyId));
  // Anything after it was created concurrently, in creation order.
  expect(concurrent.length).toBeGreaterThan(0);
  expect(seen.slice(before.length)).toEqual(concurrent.slice(0, seen.length - before.length));
});

test("the default page holds 20 keys", async () => {
  const first = await account.list();
  expect(first.body.data).toHaveLength(20);
  expect(first.body.has_more).toBe(true);
});

test("a page that ends exactly at the last key says has_more false with no cursor", async () => {
  const small = accountClient(gateway, await gateway.newProvisioningKey("three-keys"));
  const ids: string[] = [];
  for (const name of ["a", "b", "c"]) ids.push((await small.create({ name })).body.keyId);
  const firstTwo = await small.list("?limit=2");
  expect(firstTwo.body).toMatchObject({ has_more: true, data: [{ keyId: ids[0] }, { keyId: ids[1] }] });
  const rest = await small.list(`?limit=2&after=${encodeURIComponent(firstTwo.body.next_cursor!)}`);
  expect(rest.body).toMatchObject({ has_more: false, next_cursor: null, data: [{ keyId: ids[2] }] });
  const exact = await small.list("?limit=3");
  expect(exact.body).toMatchObject({ has_more: false, next_cursor: null });
  expect(exact.body.data).toHaveLength(3);
});

test.each([
  ["0", "limit"],
  ["101", "limit"],
  ["abc", "limit"],
  ["2.5", "limit"],
])("limit=%s answers 400 validation_failed naming %s", async (limit, param) => {
  expect(expectError(await account.list(`?limit=${limit}`), 400, "validation_failed").param).toBe(param);
});

test("a cursor that was not issued by this list answers 400 validation_failed naming after", async () => {
  expect(expectError(await account.list("?after=not-a-cursor"), 400, "validation_failed").param).toBe("after");
  const logCursor = Buffer.from("l1:5").toString("base64url");
  expect(expectError(await account.list(`?after=${logCursor}`), 400, "validation_failed").param).toBe("after");
});

test("an unknown query parameter answers 400 validation_failed naming it", async () => {
  expect(expectError(await account.list("?cursor=x"), 400, "validation_failed").param).toBe("cursor");
});
