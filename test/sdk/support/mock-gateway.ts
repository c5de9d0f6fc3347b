import { ERROR_CODES, withChecksum, type ApiKey, type ErrorCode } from "@gateway-keys/contract";
import type { z } from "zod";
import { GatewayClient, type ClientOptions } from "@gateway-keys/sdk";
import { MockAgent } from "./undici";

/** Origin of the mocked gateway; no request may leave the process. */
export const ORIGIN = "http://gateway.test";
/** Well-formed credentials whose appearance anywhere in an error or log line is a leak. */
export const PROVISIONING_KEY = withChecksum("provisioning", "Pq7".repeat(10) + "Zz");
export const API_KEY = withChecksum("regular", "Rk9".repeat(10) + "Yy");
export const NEW_SECRET = withChecksum("regular", "Sx4".repeat(10) + "Ww");

export const JSON_HEADERS = { "content-type": "application/json" };

/** A key record as a gateway without this repository's extensions sends it: it fits the contract. */
export function keyRecord(overrides: Partial<z.input<typeof ApiKey>> = {}): z.input<typeof ApiKey> {
  return {
    object: "api_key",
    keyId: "key_1",
    ownerId: "own_1",
    name: "ci",
    state: "active",
    version: 1,
    hint: "gwk_...abcd",
    spendPolicy: null,
    loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
    modelPolicy: { mode: "all", modelIds: [] },
    spentUnits: "0",
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    rotatedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

/** The gateway's error envelope for `code`. */
export function envelope(code: ErrorCode, message = `failed: ${code}`, extra: { param?: string; currentVersion?: number } = {}) {
  return { error: { type: ERROR_CODES[code], code, message, ...extra } };
}

/** What the client sent, as the mock saw it. */
export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null | undefined;
}

/**
 * A client wired to a MockAgent that refuses real network, with waits recorded instead of slept and
 * jitter fixed unless the test passes its own.
 */
export function mockGateway(options: Partial<ClientOptions> = {}) {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const sleeps: number[] = [];
  const logLines: string[] = [];
  const client = new GatewayClient({
    baseUrl: ORIGIN,
    provisioningKey: PROVISIONING_KEY,
    dispatcher: agent,
    logger: {
      debug: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
      warn: (message, fields) => logLines.push(`${message} ${JSON.stringify(fields ?? {})}`),
    },
    ...options,
    backoff: {
      random: () => 0,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...options.backoff,
    },
  });
  const sent = (): SentRequest[] =>
    (agent.getCallHistory()?.calls() ?? []).map((call) => ({
      method: call.method,
      path: call.path + (Object.keys(call.searchParams).length ? `?${new URLSearchParams(call.searchParams)}` : ""),
      headers: lowerCase(call.headers),
      body: call.body,
    }));
  /** Every programmed reply was used, and nothing else is left open. */
  const done = async (): Promise<void> => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  };
  return { agent, pool, client, sleeps, logLines, sent, done };
}

function lowerCase(headers: Record<string, string | string[]> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}
