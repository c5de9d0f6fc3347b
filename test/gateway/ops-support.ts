/**
 * Support of the operations tests: a slow OpenAI-wire provider (a real HTTP server on loopback)
 * whose streams take as long as a test needs, and the gateway config that forwards a model to it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayConfig } from "@gateway-keys/gateway";

/** The model the config forwards to the slow provider, and the variable holding the provider's key. */
export const SLOW_MODEL = "slow-1";
export const SLOW_KEY_ENV = "OPS_TEST_SLOW_PROVIDER_KEY";

/** A provider that streams `pieces` pieces `intervalMs` apart (and answers a whole request after as long). */
export interface SlowUpstream {
  baseUrl: string;
  /** Requests it has received (started). */
  requests: number;
  close(): Promise<void>;
}

/** The text a stream of `pieces` pieces spells, to check a stream arrived whole. */
export function slowText(pieces: number): string {
  return Array.from({ length: pieces }, (_, index) => `piece${index} `).join("");
}

export async function startSlowUpstream(pieces: number, intervalMs: number): Promise<SlowUpstream> {
  const state = { requests: 0 };
  const server: Server = createServer((request, response) => {
    state.requests++;
    let raw = "";
    request.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    request.on("end", () => {
      const body = JSON.parse(raw) as { stream?: boolean };
      const usage = { prompt_tokens: 3, completion_tokens: pieces, total_tokens: 3 + pieces };
      if (!body.stream) {
        setTimeout(() => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ choices: [{ message: { content: slowText(pieces) }, finish_reason: "stop" }], usage }));
        }, intervalMs * pieces);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      let sent = 0;
      const timer = setInterval(() => {
        if (response.destroyed) return clearInterval(timer);
        if (sent < pieces) {
          response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `piece${sent} ` }, finish_reason: null }] })}\n\n`);
          sent++;
          return;
        }
        clearInterval(timer);
        response.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }], usage })}\n\n`);
        response.end("data: [DONE]\n\n");
      }, intervalMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A gateway config forwarding {@link SLOW_MODEL} to `upstream` as provider `slow`. */
export function slowConfig(upstream: SlowUpstream): GatewayConfig {
  return {
    providers: { slow: { kind: "openai", baseUrl: upstream.baseUrl, apiKeyEnv: SLOW_KEY_ENV, timeoutMs: 10_000, maxConnections: 1024 } },
    models: [
      {
        id: SLOW_MODEL,
        family: "chat",
        description: "",
        routes: [{ provider: "slow", model: "upstream-slow" }],
        pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
        maxOutputTokens: 1000,
        unsupportedFields: "refuse",
      },
    ],
  };
}

/** Reads a Server-sent events body to its end and returns the text of its Chat Completions deltas, and whether it ended with [DONE]. */
export async function readChatStream(response: { body: unknown }, onFirstEvent?: () => void): Promise<{ text: string; done: boolean }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  let done = false;
  let first = true;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split("\n").find((line) => line.startsWith("data: "))?.slice(6);
      if (data === undefined) continue;
      if (first) {
        first = false;
        onFirstEvent?.();
      }
      if (data === "[DONE]") {
        done = true;
        continue;
      }
      text += (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "";
    }
  }
  return { text, done };
}
