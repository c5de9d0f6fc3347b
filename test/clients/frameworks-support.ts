/**
 * What the framework suites share: the runner of the frameworks (frameworks/run.mjs, in a child
 * process: the Vercel AI SDK ships as ESM only), the clients it drives with the wire each speaks,
 * and a model for scripted clouds to put behind their checks: a gateway serving `tools-1` (it
 * calls the declared tool with the prompt, then answers with the tool's result), so a tool loop
 * through a scripted cloud needs the cloud's wire to carry both turns faithfully.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ReceivedRequest, Script } from "@gateway-keys/testkit/scripted-provider";

const RUNNER = join(__dirname, "frameworks", "run.mjs");

/** Each framework client and the wire it speaks. */
export const CLIENTS = {
  "vercel-chat": "openai",
  "vercel-responses": "openai",
  "vercel-anthropic": "anthropic",
  "langchain-openai": "openai",
  "langchain-openai-responses": "openai",
  "langchain-anthropic": "anthropic",
  agents: "openai",
} as const;
export type Client = keyof typeof CLIENTS;

export interface Case {
  client: Client;
  model: string;
  stream?: boolean;
  embed?: boolean;
  api?: "chat";
}
export interface Outcome extends Case {
  ok: boolean;
  text?: string;
  calls: unknown[];
  error?: string;
  dimensions?: number;
}

/** Runs the cases against a gateway with a key; one outcome per case. */
export async function runFrameworks(baseUrl: string, key: string, cases: Case[]): Promise<Outcome[]> {
  const job = JSON.stringify({ baseUrl, key, cases });
  const { stdout } = await promisify(execFile)(process.execPath, [RUNNER, job], { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
  const outcomes = JSON.parse(stdout) as Outcome[];
  expect(outcomes).toHaveLength(cases.length);
  return outcomes;
}

const clients = Object.keys(CLIENTS) as Client[];
/** Every client, whole and streamed, on the model `model` names for it. */
export const loopsOn = (model: (client: Client) => string): Case[] => clients.flatMap((client) => [false, true].map((stream) => ({ client, model: model(client), stream })));

/** Every tool loop ran `lookup` once with the city, and the model answered with its result; a failure shows its client, model and error. */
export function expectAllLooped(outcomes: Outcome[]): void {
  const seen = outcomes.map(({ client, model, stream, ok, calls, text, error }) => ({ client, model, stream, ok, calls, text, error }));
  expect(seen).toEqual(outcomes.map(({ client, model, stream }) => ({ client, model, stream, ok: true, calls: [{ city: "Paris" }], text: "sunny in Paris", error: undefined })));
}

/** Where a cloud's request goes on the model's gateway: its path there and the body (the model set to `tools-1`). */
export type CloudMapping = (request: ReceivedRequest) => { path: string; body: Record<string, unknown> };

/**
 * A scripted cloud's answer that hands the request, once the cloud's checks passed, to the model's
 * gateway and relays its answer as it comes (events included).
 */
export function answeredBy(modelGatewayUrl: string, key: string, map: CloudMapping): (request: ReceivedRequest) => Script {
  return (request) => ({
    handle: (_request, response) =>
      void (async () => {
        const { path, body } = map(request);
        const answer = await fetch(modelGatewayUrl + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
        response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
        for await (const chunk of answer.body!) response.write(chunk);
        response.end();
      })().catch(() => response.destroy()),
  });
}
