/**
 * Mixed load on gateway processes while a test breaks their database, recording every answer:
 * key creates (each retried with its own Idempotency-Key until acknowledged, as a careful client
 * does) and chat answers on one metered key. What the fault tests then check: only the documented
 * statuses, no request held past the bound, nothing acknowledged lost, nothing duplicated, charges
 * equal to the answers given.
 */
import { randomUUID } from "node:crypto";
import { COST_HEADER, parseUnits } from "@gateway-keys/contract";

/** One answer (or the lack of one) a load client saw. */
export interface Attempt {
  kind: "create" | "chat";
  /** The HTTP status; 0 when the connection failed (refused, reset), -1 when no answer came within the bound. */
  status: number;
  /** The error code of an error envelope. */
  code?: string;
  retryAfter?: string | null;
  ms: number;
  /** The logical create this attempt belongs to (its name and Idempotency-Key). */
  create?: { name: string; idempotencyKey: string; keyId?: string };
  /** The charge a 200 chat answer stated. */
  costMicros?: bigint;
  failure?: string;
}

export interface LoadTarget {
  urls: readonly string[];
  provisioningKey: string;
  /** The secret of the key the chat answers are charged to. */
  modelKey: string;
}

/** What no answer may take longer than: connect (5 s) + statement bound (5 s) + its client margin (1 s), plus slack for a loaded machine. */
export const ANSWER_BOUND_MS = 15_000;

/**
 * Gateway options for a process under the fault load: the load's clients share one provisioning
 * key, and on a fast machine they outrun the per-credential throttle (200/s by default) — a 429
 * that is no database fault's doing. The throttle is not what these tests are about.
 */
export const UNTHROTTLED = ["--rate-limit", "1000000", "--rate-burst", "1000000"] as const;

async function send(url: string, init: RequestInit): Promise<{ status: number; body: any; headers: Headers } | { status: 0 | -1; failure: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body, headers: response.headers };
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") return { status: -1, failure: "no answer within the bound" };
    return { status: 0, failure: String((error as Error & { cause?: Error }).cause?.message ?? error) };
  }
}

/**
 * Runs `clients` loops (half creating keys, half asking for chat answers) across the gateways
 * until `stop()` resolves, then lets every logical create finish (acknowledged) or give up after
 * `settleMs`. Returns every attempt.
 */
export async function runLoad(target: LoadTarget, clients: number, stop: Promise<void>, settleMs = 20_000, attempts: Attempt[] = []): Promise<Attempt[]> {
  let stopping = false;
  void stop.then(() => {
    stopping = true;
  });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const createLoop = async (client: number) => {
    for (let n = 0; !stopping; n++) {
      const create = { name: `load ${client}-${n} ${randomUUID()}`, idempotencyKey: randomUUID() };
      const giveUpAt = () => (stopping ? Date.now() + settleMs : Infinity);
      let deadline = Infinity;
      for (let attempt = 0; ; attempt++) {
        const url = target.urls[(client + attempt) % target.urls.length]!;
        const started = Date.now();
        const answer = await send(`${url}/v1/account/api-keys`, {
          method: "POST",
          headers: { authorization: `Bearer ${target.provisioningKey}`, "idempotency-key": create.idempotencyKey, "content-type": "application/json" },
          body: JSON.stringify({ name: create.name }),
        });
        const record: Attempt = { kind: "create", status: answer.status, ms: Date.now() - started, create: { ...create } };
        if ("failure" in answer) record.failure = answer.failure;
        else {
          record.code = answer.body?.error?.code;
          record.retryAfter = answer.headers.get("retry-after");
          if (answer.status === 201) record.create!.keyId = answer.body.keyId;
        }
        attempts.push(record);
        if (answer.status === 201 || (answer.status !== 503 && answer.status > 0)) break;
        if (deadline === Infinity) deadline = giveUpAt();
        if (Date.now() > deadline) break;
        // Sooner than Retry-After asks, to probe the outage's end closely.
        await pause(100);
      }
    }
  };

  const chatLoop = async (client: number) => {
    for (let n = 0; !stopping; n++) {
      const url = target.urls[(client + n) % target.urls.length]!;
      const started = Date.now();
      const answer = await send(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${target.modelKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "echo-1", messages: [{ role: "user", content: `ping ${client} ${n}` }], max_tokens: 8 }),
      });
      const record: Attempt = { kind: "chat", status: answer.status, ms: Date.now() - started };
      if ("failure" in answer) record.failure = answer.failure;
      else {
        record.code = answer.body?.error?.code;
        record.retryAfter = answer.headers.get("retry-after");
        const cost = answer.headers.get(COST_HEADER);
        if (answer.status === 200 && cost !== null) record.costMicros = parseUnits(cost);
      }
      attempts.push(record);
      if (answer.status !== 200) await pause(100);
    }
  };

  await Promise.all(Array.from({ length: clients }, (_, client) => (client % 2 === 0 ? createLoop(client) : chatLoop(client))));
  return attempts;
}

/** Counts of attempts by kind and status, for the failure message and the closing note's table. */
export function statusTable(attempts: readonly Attempt[]): Record<string, number> {
  const table: Record<string, number> = {};
  for (const attempt of attempts) {
    const label = `${attempt.kind} ${attempt.status}${attempt.code ? ` ${attempt.code}` : ""}`;
    table[label] = (table[label] ?? 0) + 1;
  }
  return table;
}
