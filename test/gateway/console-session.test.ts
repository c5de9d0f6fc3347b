/**
 * The console's session over plain HTTP (the browser tests in test/console drive the pages): off
 * unless asked, who may sign in, what the cookie is and what it may do.
 */
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError } from "./helpers";

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
