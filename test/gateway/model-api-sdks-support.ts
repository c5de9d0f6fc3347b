/**
 * Helpers of the tests that drive the text wires (Chat Completions, Responses, Messages) with the
 * official `openai` and `@anthropic-ai/sdk` clients over real HTTP.
 *
 * Prices of the built-in chat models, in credits per token (docs/operators/providers/built-in.md#built-in-models):
 * echo-1 0.001 in / 0.002 out, reverse-1 0.002 / 0.004, count-1 0.0005 / 0.001. A token is a run of
 * letters or digits, or one other visible character. The prompt is counted as one text: the last
 * user message alone when it is the whole conversation, else `role: text` lines (labels included).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { LogEntry } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient } from "./helpers";

/**
 * The official OpenAI client against `gateway` (base URL `<gateway>/v1`), with no retries: a retry
 * would hide a failure, and could double a charge.
 */
export function openaiFor(gateway: TestGateway, secret: string): OpenAI {
  return new OpenAI({ apiKey: secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
}

/**
 * The official Anthropic client against `gateway` (base URL `<gateway>`), sending the key as
 * `x-api-key` (`apiKey`) or as `Authorization: Bearer` (`authToken`); never from the environment.
 */
export function anthropicFor(gateway: TestGateway, credential: { apiKey: string } | { authToken: string }, headers?: Record<string, string>): Anthropic {
  return new Anthropic({
    apiKey: "apiKey" in credential ? credential.apiKey : null,
    authToken: "authToken" in credential ? credential.authToken : null,
    baseURL: gateway.baseUrl,
    maxRetries: 0,
    ...(headers ? { defaultHeaders: headers } : {}),
  });
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejection(promise: PromiseLike<unknown>): Promise<any> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

/** What the key has been charged so far, as the account API reports it to the key's owner. */
export async function spentUnits(gateway: TestGateway, keyId: string, provisioningKey = gateway.provisioningKey): Promise<string> {
  const answer = await accountClient(gateway, provisioningKey).get(keyId);
  if (answer.status !== 200) throw new Error(`reading ${keyId} failed: ${answer.status} ${answer.text}`);
  return answer.body.spentUnits;
}

/** The key's request-log rows, newest first. */
export async function logRows(gateway: TestGateway, keyId: string, provisioningKey = gateway.provisioningKey): Promise<LogEntry[]> {
  const answer = await accountClient(gateway, provisioningKey).logs(`?keyId=${keyId}&limit=100`);
  if (answer.status !== 200) throw new Error(`reading the logs failed: ${answer.status} ${answer.text}`);
  return answer.body.data;
}

/**
 * Waits until the key has `count` log rows: a stream the client cut is settled after the client
 * has gone, so its row lands a moment later.
 */
export async function settledRows(gateway: TestGateway, keyId: string, count: number, provisioningKey = gateway.provisioningKey): Promise<LogEntry[]> {
  for (let waited = 0; waited <= 5000; waited += 10) {
    const rows = await logRows(gateway, keyId, provisioningKey);
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the key did not get ${count} log rows within 5 s`);
}

/** `n` distinct words separated by spaces: exactly `n` tokens. */
export function words(n: number): string {
  return Array.from({ length: n }, (_, index) => `w${index}`).join(" ");
}
