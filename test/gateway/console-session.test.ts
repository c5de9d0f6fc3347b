/**
 * The console's session over plain HTTP (the browser tests in test/console drive the pages): off
 * unless asked, who may sign in, what the cookie is and what it may do.
 */
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, unreachableOidc } from "./helpers";

let gateway: TestGateway;
let off: TestGateway;
beforeAll(async () => {
  [gateway, off] = await Promise.all([startTestGateway({ console: true, storage: "memory" }), startTestGateway({ storage: "memory" })]);
});
afterAll(async () => Promise.all([gateway?.stop(), off?.stop()]));

const signIn = (provisioningKey: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.baseUrl}/console/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ provisioningKey }),
  });

test("is off unless asked: no console, and a session cookie signs nothing in", async () => {
  expect((await call(off.baseUrl, "GET", "/console")).status).toBe(404);
  expect((await call(off.baseUrl, "POST", "/console/session", { body: { provisioningKey: off.provisioningKey } })).status).toBe(404);
  const cookie = (await signIn(gateway.provisioningKey)).headers.get("set-cookie")!.split(";")[0]!;
  const elsewhere = await fetch(`${off.baseUrl}/v1/account/api-keys`, { headers: { cookie } });
  expect(elsewhere.status).toBe(401);
});

test("the cookie is HttpOnly, SameSite=Strict and 30 minutes, Secure when a TLS proxy says the request came over https", async () => {
  const plain = (await signIn(gateway.provisioningKey)).headers.get("set-cookie")!;
  expect(plain).toMatch(/^gateway_console=[\w-]+; Max-Age=1800; Path=\/; HttpOnly; SameSite=Strict$/);
  const proxied = (await signIn(gateway.provisioningKey, { "x-forwarded-proto": "https" })).headers.get("set-cookie")!;
  expect(proxied).toMatch(/; Secure/);
  expect(plain).not.toContain(gateway.provisioningKey);
});

test("the cookie reads the account API and changes nothing; an altered cookie reads nothing", async () => {
  const key = await gateway.createRegularKey({ name: "kept" });
  const cookie = (await signIn(gateway.provisioningKey)).headers.get("set-cookie")!.split(";")[0]!;
  expect((await fetch(`${gateway.baseUrl}/v1/account/api-keys/${key.keyId}`, { headers: { cookie } })).status).toBe(200);
  const patch = await fetch(`${gateway.baseUrl}/v1/account/api-keys/${key.keyId}`, {
    method: "PATCH",
    headers: { cookie, "content-type": "application/json", "idempotency-key": "cookie-patch" },
    body: JSON.stringify({ expectedVersion: 1, name: "changed" }),
  });
  expect(patch.status).toBe(401);
  expect((await accountClient(gateway).get(key.keyId)).body).toMatchObject({ name: "kept", version: 1 });
  // The second-to-last character, changed whatever it is (an "A" there made this compare the cookie with itself).
  const altered = `${cookie.slice(0, -2)}${cookie.at(-2) === "A" ? "B" : "A"}${cookie.slice(-1)}`;
  expect(altered).not.toBe(cookie);
  expect((await fetch(`${gateway.baseUrl}/v1/account/api-keys`, { headers: { cookie: altered } })).status).toBe(401);
});

test("signing in wants a provisioning key with both read scopes, and names what is missing", async () => {
  const writer = await gateway.newProvisioningKey("test-owner", ["keys:write"]);
  const refused = await signIn(writer);
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe("The console needs a provisioning key with keys:read and usage:read.");
  const wrongShape = await call(gateway.baseUrl, "POST", "/console/session", { body: { key: "x" } });
  expect(expectError(wrongShape, 400, "validation_failed").param).toBe("provisioningKey");
});

test("a sign-in appends a console_sign_in audit event naming the provisioning key by id and hint, readable with the cookie", async () => {
  const response = await signIn(gateway.provisioningKey);
  const { hint } = (await response.json()) as { hint: string };
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  const page = await fetch(`${gateway.baseUrl}/v1/account/audit-events?action=console_sign_in&limit=1`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const [event] = ((await page.json()) as { data: { action: string; actor: { kind: string; id: string; hint: string } }[] }).data;
  expect(event).toMatchObject({ action: "console_sign_in", actor: { kind: "console", id: expect.stringMatching(/^pk_/), hint } });
  expect(JSON.stringify(event)).not.toContain(gateway.provisioningKey);
});

describe("with the provisioning-key sign-in turned off (OpenID Connect only)", () => {
  let oidcOnly: TestGateway;
  beforeAll(async () => {
    oidcOnly = await startTestGateway({
      storage: "memory",
      console: {
        provisioningKey: false,
        // The provider is discovered at the first OpenID Connect sign-in (test/console/oidc-sign-in.test.ts).
        oidc: unreachableOidc([{ claim: "groups", value: "search-team", owners: ["search"] }]),
      },
    });
  });
  afterAll(async () => oidcOnly?.stop());

  test("the sign-in page is told which ways to sign in there are", async () => {
    expect((await call(oidcOnly.baseUrl, "GET", "/console/sign-in-methods")).body).toEqual({ provisioningKey: false, oidc: true });
    expect((await call(gateway.baseUrl, "GET", "/console/sign-in-methods")).body).toEqual({ provisioningKey: true, oidc: false });
  });

  test("a provisioning key is refused with key_sign_in_disabled and gets no cookie", async () => {
    const refused = await call(oidcOnly.baseUrl, "POST", "/console/session", { body: { provisioningKey: oidcOnly.provisioningKey } });
    expectError(refused, 403, "key_sign_in_disabled");
    expect(refused.headers.get("set-cookie")).toBeNull();
    // The account API itself still takes the key as a bearer: only the console's sign-in is off.
    expect((await accountClient(oidcOnly).list()).status).toBe(200);
  });

  test("a console with no way to sign in is refused at start", async () => {
    await expect(startTestGateway({ storage: "memory", console: { provisioningKey: false } })).rejects.toThrow(
      "the console's provisioning-key sign-in is off and no OpenID Connect sign-in is configured: nobody could sign in",
    );
  });
});

test("a key's console session reads its own owner only: x-console-owner naming another is refused", async () => {
  const cookie = (await signIn(gateway.provisioningKey)).headers.get("set-cookie")!.split(";")[0]!;
  const own = await call(gateway.baseUrl, "GET", "/v1/account/api-keys", { headers: { cookie, "x-console-owner": gateway.ownerId } });
  expect(own.status).toBe(200);
  const other = await call(gateway.baseUrl, "GET", "/v1/account/api-keys", { headers: { cookie, "x-console-owner": "someone-else" } });
  expect(expectError(other, 403, "owner_not_viewable").param).toBe("x-console-owner");
});
