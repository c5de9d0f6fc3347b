/** HTTP helpers of the gateway tests: every call goes over a real loopback socket. */
import { randomUUID } from "node:crypto";
import { ERROR_CODES, ErrorEnvelope, type ApiKey, type ApiKeyWithSecret, type ErrorCode, type ListPage } from "@gateway-keys/contract";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "@gateway-keys/testkit/test-gateway";

export interface WireResponse<Body = any> {
  status: number;
  headers: Headers;
  body: Body;
  text: string;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <bearer>`. */
  bearer?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Serialised as JSON with Content-Type: application/json. */
  body?: unknown;
  /** Sent as is (with Content-Type: application/json unless `headers` says otherwise). */
  rawBody?: string;
  /** `Idempotency-Key`; `"auto"` for a fresh one. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** One request; the body is parsed as JSON when it is JSON. */
export async function call<Body = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<WireResponse<Body>> {
  const headers: Record<string, string> = {};
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
  if (options.idempotencyKey !== undefined) {
    headers["idempotency-key"] = options.idempotencyKey === "auto" ? randomUUID() : options.idempotencyKey;
  }
  let body: string | undefined;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (options.rawBody !== undefined) body = options.rawBody;
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers);
  const response = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as Body, text };
}

/** Account API calls as the fixture's owner (or another provisioning key). */
export function accountClient(gateway: TestGateway, provisioningKey = gateway.provisioningKey) {
  const base = gateway.baseUrl;
  return {
    create: (body: unknown, idempotencyKey = "auto") =>
      call<ApiKeyWithSecret>(base, "POST", "/v1/account/api-keys", { bearer: provisioningKey, body, idempotencyKey }),
    get: (keyId: string) => call<ApiKey>(base, "GET", `/v1/account/api-keys/${keyId}`, { bearer: provisioningKey }),
    list: (query = "") => call<ListPage<ApiKey>>(base, "GET", `/v1/account/api-keys${query}`, { bearer: provisioningKey }),
    patch: (keyId: string, body: unknown, idempotencyKey = "auto") =>
      call<ApiKey>(base, "PATCH", `/v1/account/api-keys/${keyId}`, { bearer: provisioningKey, body, idempotencyKey }),
    rotate: (keyId: string, body: unknown, idempotencyKey = "auto") =>
      call<ApiKeyWithSecret>(base, "POST", `/v1/account/api-keys/${keyId}/rotate`, { bearer: provisioningKey, body, idempotencyKey }),
    revoke: (keyId: string, body: unknown, idempotencyKey = "auto") =>
      call<ApiKey>(base, "POST", `/v1/account/api-keys/${keyId}/revoke`, { bearer: provisioningKey, body, idempotencyKey }),
    usage: () => call(base, "GET", "/v1/account/usage/summary", { bearer: provisioningKey }),
    metrics: () => call(base, "GET", "/v1/account/metrics", { bearer: provisioningKey }),
    logs: (query = "") => call(base, "GET", `/v1/account/logs${query}`, { bearer: provisioningKey }),
    /** Every key of the owner, following cursors. */
    async listAll(limit = 100): Promise<ApiKey[]> {
      const keys: ApiKey[] = [];
      let after: string | null = null;
      do {
        const query: string = `?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
        const page = await call<ListPage<ApiKey>>(base, "GET", `/v1/account/api-keys${query}`, { bearer: provisioningKey });
        if (page.status !== 200) throw new Error(`list failed: ${page.status} ${page.text}`);
        keys.push(...page.body.data);
        after = page.body.next_cursor;
      } while (after);
      return keys;
    },
  };
}

/** A model request with a regular key. */
export function respond(gateway: TestGateway, secret: string, body: unknown = { model: "echo-1", input: "hello" }) {
  return call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body });
}

/** Asserts the status, code and envelope shape of an error answer, and returns its `error`. */
export function expectError(response: WireResponse, status: number, code: ErrorCode): ErrorEnvelope["error"] {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  const envelope = ErrorEnvelope.strict().parse(response.body);
  expect(envelope.error.type).toBe(ERROR_CODES[code]);
  return envelope.error;
}

/**
 * Starts a gateway before the file's tests and stops it after them, handing the gateway and an
 * account client of its owner to `receive` (the file keeps them in its own variables).
 */
export function useGateway(receive: (gateway: TestGateway, account: ReturnType<typeof accountClient>) => void, options?: TestGatewayOptions): void {
  let started: TestGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(options);
    receive(started, accountClient(started));
  });
  afterAll(() => started?.stop());
}

/** The `usage` of a Responses answer the gateway builds: the counts, and the details OpenAI's document requires (nothing cached, no reasoning). */
export function responseUsage(input: number, output: number) {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/**
 * Console OpenID Connect settings whose provider is never reached: for tests that seal a person's
 * session themselves (or only need the sign-in configured), not sign in through a provider.
 */
export function unreachableOidc(access: { claim: string; value: string; owners: string[] }[]) {
  return {
    issuer: "https://idp.example.invalid",
    clientId: "gateway-console",
    clientSecret: "never-sent",
    redirectUrl: "http://127.0.0.1/console/oidc/callback",
    scopes: ["openid"],
    access,
  };
}
