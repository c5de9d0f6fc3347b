/**
 * Load generators of the gateway benchmarks, run on the main thread while servers run elsewhere.
 * Whole answers: autocannon (its per-response times, sub-millisecond, collected here rather than
 * from its integer histogram). Streams: a loop per connection over an undici Pool that times the
 * first body byte and the last.
 */
import autocannon from "autocannon";
import { Pool } from "undici";

/** A POST to drive: where, with which headers and body. */
export interface Target {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Headers given to each connection in turn, over {@link headers} (e.g. one credential per connection). */
  headersPerConnection?: readonly Record<string, string>[];
}

export interface WholeCell {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Every response's time, ms, sorted: for merging cells measured side by side. */
  latencies: number[];
}

/** Cells measured at the same time against different servers, as one: their rates add up. */
export function mergeWhole(cells: readonly WholeCell[]): WholeCell {
  const latencies = cells.flatMap((cell) => cell.latencies).sort((a, b) => a - b);
  return {
    requestsPerSecond: cells.reduce((sum, cell) => sum + cell.requestsPerSecond, 0),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors: cells.reduce((sum, cell) => sum + cell.errors, 0),
    latencies,
  };
}

export interface StreamCell {
  requestsPerSecond: number;
  /** Time to first byte of the body (the first event), ms. */
  ttfbP50: number;
  ttfbP99: number;
  /** Time to the body's end, ms. */
  ttlbP50: number;
  ttlbP99: number;
  errors: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Drives `target` with `connections` concurrent connections for `seconds`, whole answers. */
export async function loadWhole(target: Target, connections: number, seconds: number): Promise<WholeCell> {
  const latencies: number[] = [];
  const headers = { "content-type": "application/json", ...target.headers };
  let connection = 0;
  const perConnection = target.headersPerConnection;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.origin + target.path,
        method: "POST",
        connections,
        duration: seconds,
        headers,
        body: target.body,
        ...(perConnection ? { setupClient: (client) => client.setHeaders({ ...headers, ...perConnection[connection++ % perConnection.length] }) } : {}),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  });
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: result.requests.total / (result.duration || seconds),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors: result.errors + result.non2xx + result.timeouts,
    latencies,
  };
}

/** Drives `target` with `connections` concurrent streams for `seconds`; every stream is read to its end. */
export async function loadStreams(target: Target, connections: number, seconds: number): Promise<StreamCell> {
  const pool = new Pool(target.origin, { connections });
  const firstByte: number[] = [];
  const lastByte: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        const response = await pool.request({ method: "POST", path: target.path, headers: { "content-type": "application/json", ...target.headers }, body: target.body });
        let first = Number.NaN;
        for await (const _ of response.body) if (Number.isNaN(first)) first = performance.now() - start;
        if (response.statusCode !== 200 || Number.isNaN(first)) {
          errors++;
          continue;
        }
        firstByte.push(first);
        lastByte.push(performance.now() - start);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  firstByte.sort((a, b) => a - b);
  lastByte.sort((a, b) => a - b);
  return {
    requestsPerSecond: lastByte.length / elapsed,
    ttfbP50: percentile(firstByte, 0.5),
    ttfbP99: percentile(firstByte, 0.99),
    ttlbP50: percentile(lastByte, 0.5),
    ttlbP99: percentile(lastByte, 0.99),
    errors,
  };
}

/** One load's outcome in the profiles' terms: answers per second, answers completed, errors. */
export interface Driven {
  perSecond: number;
  requests: number;
  errors: number;
}

/** Drives `target` with whole answers or streams (as {@link loadWhole} and {@link loadStreams}); counts the answers completed. */
export async function drive(target: Target, connections: number, seconds: number, streamed: boolean): Promise<Driven> {
  if (streamed) {
    const start = performance.now();
    const cell = await loadStreams(target, connections, seconds);
    // Its rate is streams read to the end over the time the loops ran.
    return { perSecond: cell.requestsPerSecond, requests: Math.round((cell.requestsPerSecond * (performance.now() - start)) / 1000), errors: cell.errors };
  }
  const cell = await loadWhole(target, connections, seconds);
  return { perSecond: cell.requestsPerSecond, requests: cell.latencies.length, errors: cell.errors };
}
