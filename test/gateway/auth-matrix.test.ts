/**
 * Who may call what: every endpoint against every kind of credential, table-driven. Each row runs
 * against a fresh target key so a success on one row cannot change another row's answer.
 */
import { withChecksum } from "@gateway-keys/contract";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, type WireResponse } from "./helpers";

let gateway: TestGateway;
let otherOwnerKey: string;
let readOnlyKey: string;
let usageOnlyKey: string;
/** Credentials that are the same for every row. */
let regular: string;
let revoked: string;
let rotatedAway: string;
let disabled: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  otherOwnerKey = await gateway.newProvisioningKey("another-owner");
  readOnlyKey = await gateway.newProvisioningKey(gateway.ownerId, ["keys:read"]);
  usageOnlyKey = await gateway.newProvisioningKey(gateway.ownerId, ["usage:read"]);
  regular = (await gateway.createRegularKey({ name: "regular" })).secret;
  const toRevoke = await gateway.createRegularKey({ name: "revoked" });
  await call(gateway.baseUrl, "POST", `/v1/account/api-keys/${toRevoke.keyId}/revoke`, {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { expectedVersion: 1 },
  });
  revoked = toRevoke.secret;
  const toRotate = await gateway.createRegularKey({ name: "rotated" });
  await call(gateway.baseUrl, "POST", `/v1/account/api-keys/${toRotate.keyId}/rotate`, {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { expectedVersion: 1 },
  });
  rotatedAway = toRotate.secret;
  const toDisable = await gateway.createRegularKey({ name: "disabled" });
  await call(gateway.baseUrl, "PATCH", `/v1/account/api-keys/${toDisable.keyId}`, {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { expectedVersion: 1, state: "disabled" },
  });
  disabled = toDisable.secret;
});
afterAll(() => gateway.stop());

const badChecksum = () => `${regular.slice(0, -1)}${regular.endsWith("A") ? "B" : "A"}`;
const unknownProvisioning = () => withChecksum("provisioning", "0".repeat(32));

type Headers = Record<string, string>;
const bearer = (secret: string): Headers => ({ authorization: `Bearer ${secret}` });

/** Named credential header sets; functions because secrets exist only after beforeAll. */
const CREDENTIALS: Record<string, () => Headers> = {
  none: () => ({}),
  "own provisioning key": () => bearer(gateway.provisioningKey),
  "another owner's provisioning key": () => bearer(otherOwnerKey),
  "provisioning key with keys:read only": () => bearer(readOnlyKey),
  "provisioning key with usage:read only": () => bearer(usageOnlyKey),
  "unknown provisioning key": () => bearer(unknownProvisioning()),
  "provisioning key in x-api-key": () => ({ "x-api-key": gateway.provisioningKey }),
  "regular key": () => bearer(regular),
  "regular key in x-api-key": () => ({ "x-api-key": regular }),
  "same regular key in both headers": () => ({ ...bearer(regular), "x-api-key": regular }),
  "different keys in the two headers": () => ({ ...bearer(regular), "x-api-key": disabled }),
  "revoked regular key": () => bearer(revoked),
  "rotated-away regular key": () => bearer(rotatedAway),
  "disabled regular key": () => bearer(disabled),
  "key with a bad checksum": () => bearer(badChecksum()),
  "Basic authorization": () => ({ authorization: "Basic dXNlcjpwYXNz" }),
};

interface Endpoint {
  name: string;
  /** Sends the request with the given credential headers against a fresh key of the fixture's owner. */
  send(headers: Headers, targetKeyId: string): Promise<WireResponse>;
  /** Status (and code when an error) per credential name; rows not listed are not run. */
  expect: Record<string, [number, string?]>;
}

const send = (method: string, path: string, headers: Headers, body?: unknown, idempotent = false) =>
  call(gateway.baseUrl, method, path, {
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(idempotent ? { idempotencyKey: "auto" } : {}),
  });

const ACCOUNT_COMMON: Record<string, [number, string?]> = {
  none: [401, "invalid_credentials"],
  "unknown provisioning key": [401, "invalid_credentials"],
  "provisioning key in x-api-key": [401, "invalid_credentials"],
  "regular key": [403, "wrong_key_kind"],
  "revoked regular key": [403, "wrong_key_kind"],
  "key with a bad checksum": [401, "invalid_credentials"],
  "Basic authorization": [401, "invalid_credentials"],
};

const ENDPOINTS: Endpoint[] = [
  {
    name: "GET /v1/account/api-keys",
    send: (h) => send("GET", "/v1/account/api-keys", h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [200], "provisioning key with keys:read only": [200], "provisioning key with usage:read only": [403, "missing_scope"] },
  },
  {
    name: "POST /v1/account/api-keys",
    send: (h) => send("POST", "/v1/account/api-keys", h, { name: "matrix" }, true),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [201], "another owner's provisioning key": [201], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "GET /v1/account/api-keys/{keyId}",
    send: (h, id) => send("GET", `/v1/account/api-keys/${id}`, h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [404, "key_not_found"], "provisioning key with keys:read only": [200], "provisioning key with usage:read only": [403, "missing_scope"] },
  },
  {
    name: "PATCH /v1/account/api-keys/{keyId}",
    send: (h, id) => send("PATCH", `/v1/account/api-keys/${id}`, h, { expectedVersion: 1, name: "renamed" }, true),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [404, "key_not_found"], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "POST /v1/account/api-keys/{keyId}/rotate",
    send: (h, id) => send("POST", `/v1/account/api-keys/${id}/rotate`, h, { expectedVersion: 1 }, true),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [404, "key_not_found"], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "POST /v1/account/api-keys/{keyId}/revoke",
    send: (h, id) => send("POST", `/v1/account/api-keys/${id}/revoke`, h, { expectedVersion: 1 }, true),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [404, "key_not_found"], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "GET /v1/account/usage/summary",
    send: (h) => send("GET", "/v1/account/usage/summary", h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "provisioning key with usage:read only": [200], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "GET /v1/account/metrics",
    send: (h) => send("GET", "/v1/account/metrics", h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "provisioning key with usage:read only": [200], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "GET /v1/account/logs",
    send: (h) => send("GET", "/v1/account/logs", h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "provisioning key with usage:read only": [200], "provisioning key with keys:read only": [403, "missing_scope"] },
  },
  {
    name: "GET /v1/account/logs?keyId={keyId}",
    send: (h, id) => send("GET", `/v1/account/logs?keyId=${id}`, h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "another owner's provisioning key": [404, "key_not_found"] },
  },
  {
    name: "GET /v1/account/whoami",
    send: (h) => send("GET", "/v1/account/whoami", h),
    expect: { ...ACCOUNT_COMMON, "own provisioning key": [200], "provisioning key with keys:read only": [200], "provisioning key with usage:read only": [200] },
  },
  {
    name: "POST /v1/responses",
    send: (h) => send("POST", "/v1/responses", h, { model: "echo-1", input: "hi" }),
    expect: {
      none: [401, "invalid_credentials"],
      "regular key": [200],
      "regular key in x-api-key": [200],
      "same regular key in both headers": [200],
      "different keys in the two headers": [401, "invalid_credentials"],
      "own provisioning key": [403, "wrong_key_kind"],
      "provisioning key in x-api-key": [403, "wrong_key_kind"],
      "revoked regular key": [401, "invalid_credentials"],
      "rotated-away regular key": [401, "invalid_credentials"],
      "disabled regular key": [403, "key_disabled"],
      "key with a bad checksum": [401, "invalid_credentials"],
      "Basic authorization": [401, "invalid_credentials"],
    },
  },
  {
    name: "GET /v1/models",
    send: (h) => send("GET", "/v1/models", h),
    expect: {
      none: [200],
      "regular key": [200],
      "regular key in x-api-key": [200],
      "different keys in the two headers": [401, "invalid_credentials"],
      "own provisioning key": [403, "wrong_key_kind"],
      "revoked regular key": [401, "invalid_credentials"],
      "rotated-away regular key": [401, "invalid_credentials"],
      "key with a bad checksum": [401, "invalid_credentials"],
    },
  },
  {
    name: "GET /v1/startups",
    send: (h) => send("GET", "/v1/startups", h),
    expect: { none: [200], "regular key": [200], "own provisioning key": [200], "key with a bad checksum": [200] },
  },
];

const ROWS = ENDPOINTS.flatMap((endpoint) =>
  Object.entries(endpoint.expect).map(([credential, [status, code]]) => ({ endpoint, credential, status, code })),
);

test.each(ROWS.map((row) => [row.endpoint.name, row.credential, row.status, row.code ?? "", row] as const))(
  "%s with %s answers %i %s",
  async (_name, credential, status, code, row) => {
    const target = await gateway.createRegularKey({ name: "target" });
    const answer = await row.endpoint.send(CREDENTIALS[credential]!(), target.keyId);
    if (code) expectError(answer, status, code as never);
    else expect({ status: answer.status, body: answer.body }).toEqual({ status, body: expect.anything() });
  },
);

describe("owners never see each other's data", () => {
  test("another owner's list does not contain this owner's keys", async () => {
    const target = await gateway.createRegularKey({ name: "private" });
    const listed = await send("GET", "/v1/account/api-keys?limit=100", bearer(otherOwnerKey));
    expect(listed.text).not.toContain(target.keyId);
  });

  test("another owner's usage, metrics and logs do not count this owner's requests", async () => {
    await send("POST", "/v1/responses", bearer(regular), { model: "echo-1", input: "mine" });
    const usage = await send("GET", "/v1/account/usage/summary", bearer(otherOwnerKey));
    const metrics = await send("GET", "/v1/account/metrics", bearer(otherOwnerKey));
    const logs = await send("GET", "/v1/account/logs", bearer(otherOwnerKey));
    expect(usage.body).toMatchObject({ ownerId: "another-owner", requests: 0, spentUnits: "0", byKey: [], byModel: [] });
    expect(metrics.body.requests).toEqual({ total: 0, succeeded: 0, rejected: 0 });
    expect(logs.body.data).toEqual([]);
  });

  test("another owner's 404 for an existing key is the same as for a key that never existed", async () => {
    const target = await gateway.createRegularKey({ name: "exists" });
    const existing = await send("GET", `/v1/account/api-keys/${target.keyId}`, bearer(otherOwnerKey));
    const missing = await send("GET", "/v1/account/api-keys/key_doesnotexist000000", bearer(otherOwnerKey));
    expect(existing.status).toBe(404);
    expect(existing.body).toEqual(missing.body);
  });
});
