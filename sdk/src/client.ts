import { randomUUID } from "node:crypto";
import { GatewayInfo, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, ListPage, Principal, REPLAYED_HEADER, ROUTES } from "@gateway-keys/contract";
import { Agent, type Dispatcher } from "undici";
import type { z } from "zod";
import { APIPromise } from "./core/api-promise";
import { AbortError, APIError, ConnectionError, GatewayError, InvalidArgumentError, ResponseValidationError, TimeoutError } from "./core/errors";
import { Page, PagePromise } from "./core/pagination";
import type { Logger, ModelRequestOptions, PageSpec, RequestOptions, RequestSpec, WithResponse } from "./core/request-options";
import type { RequestClient } from "./core/resource";
import { parseRetryAfter, retryDelay, sleep, type BackoffSettings } from "./internal/backoff";
import {
  baseUrlProblem,
  codeOf,
  countProblem,
  credentialProblem,
  envelopeCode,
  firstHeader,
  isUndiciArgumentError,
  messageOf,
  queryString,
  type ArgumentProblem,
  type ResponseHeaders,
} from "./internal/http";
import { parseAnswer, tryJson } from "./internal/parse";
import { redact } from "./internal/redact";
import { ApiKeys } from "./resources/api-keys";
import { AuditEvents } from "./resources/audit-events";
import { Teams } from "./resources/teams";
import { Webhooks } from "./resources/webhooks";
import { Logs } from "./resources/logs";
import { AccountMetrics } from "./resources/metrics";
import { Models } from "./resources/models";
import { Responses } from "./resources/responses";
import { Usage } from "./resources/usage";
import { VERSION } from "./version";

/**
 * How long the client waits between attempts, and the hooks tests use to observe it.
 *
 * @example
 * new GatewayClient({ baseUrl, provisioningKey, backoff: { baseDelayMs: 10, maxDelayMs: 100 } });
 */
export interface BackoffOptions extends Partial<BackoffSettings> {
  /** Waits `ms`, rejecting when `signal` aborts. Tests inject a recorder to skip real waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Options of {@link GatewayClient}.
 *
 * @example
 * const options: ClientOptions = { baseUrl: "http://127.0.0.1:8787", provisioningKey: process.env.GATEWAY_PROVISIONING_KEY };
 */
export interface ClientOptions {
  /** Where the gateway listens, e.g. `https://gateway.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Provisioning key for the account API (`/v1/account/*`). */
  provisioningKey?: string;
  /** Regular API key for model endpoints; a call can override it with `options.apiKey`. */
  apiKey?: string;
  /** Transport. Defaults to one undici `Agent` owned by this client (closed by `close()`). */
  dispatcher?: Dispatcher;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Time limit of each attempt, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Makes Idempotency-Keys for mutations that were not given one. Default `crypto.randomUUID`. */
  generateIdempotencyKey?: () => string;
  /** Receives a line per retry and fallback. Lines never hold secrets or bodies. */
  logger?: Logger;
  /** Backoff between attempts. Defaults: 500 ms doubling to 8 s, `Retry-After` capped at 60 s. */
  backoff?: BackoffOptions;
}

type Attempt =
  | { kind: "answer"; status: number; headers: ResponseHeaders; text: string }
  | { kind: "failure"; cause: unknown; timedOut: boolean };

const DEFAULTS = { maxRetries: 2, timeoutMs: 60_000, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };
const USER_AGENT = `gateway-keys-sdk/${VERSION} node/${process.version}`;

/**
 * Client of the gateway: the account API (keys, usage, metrics, logs) with a provisioning key, and
 * the model endpoints with a regular key. Every mutation carries one Idempotency-Key across all its
 * retries, so a retried create or rotate hands back the original secret instead of making another.
 *
 * @example
 * const client = new GatewayClient({ baseUrl: "http://127.0.0.1:8787", provisioningKey });
 * const key = await client.apiKeys.create({ name: "ci", spendPolicy: { limitUnits: "100" } });
 * for await (const k of client.apiKeys.list()) console.log(k.keyId, k.state);
 * await client.close();
 */
export class GatewayClient implements RequestClient {
  /** Regular API keys: create, list, get, update, rotate, revoke. */
  readonly apiKeys: ApiKeys;
  /** What the owner's keys spent. */
  readonly usage: Usage;
  /** Counters of keys and requests. */
  readonly metrics: AccountMetrics;
  /** Request logs. */
  readonly logs: Logs;
  /** The gateway's models (public). */
  readonly models: Models;
  /** The audit trail of account changes, and its verification. */
  readonly auditEvents: AuditEvents;
  /** Webhook endpoints and their deliveries. */
  readonly webhooks: Webhooks;
  /** Teams: spend, rate and model limits shared by their keys. */
  readonly teams: Teams;
  /** Model requests, with a regular key. */
  readonly responses: Responses;

  readonly #origin: string;
  readonly #pathPrefix: string;
  readonly #provisioningKey: string | undefined;
  readonly #apiKey: string | undefined;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #generateIdempotencyKey: () => string;
  readonly #logger: Logger | undefined;
  readonly #backoff: BackoffSettings;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #dispatcher: Dispatcher | undefined;
  #ownAgent: Agent | undefined;

  constructor(options: ClientOptions) {
    refuse(baseUrlProblem(options.baseUrl));
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#pathPrefix = url.pathname.replace(/\/+$/, "");
    this.#provisioningKey = options.provisioningKey;
    this.#apiKey = options.apiKey;
    this.#maxRetries = count("maxRetries", options.maxRetries, DEFAULTS.maxRetries);
    this.#timeoutMs = count("timeoutMs", options.timeoutMs, DEFAULTS.timeoutMs);
    this.#generateIdempotencyKey = options.generateIdempotencyKey ?? randomUUID;
    this.#logger = options.logger;
    this.#backoff = {
      baseDelayMs: options.backoff?.baseDelayMs ?? DEFAULTS.baseDelayMs,
      maxDelayMs: options.backoff?.maxDelayMs ?? DEFAULTS.maxDelayMs,
      maxRetryAfterMs: options.backoff?.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
      random: options.backoff?.random ?? Math.random,
    };
    this.#sleep = options.backoff?.sleep ?? sleep;
    this.#dispatcher = options.dispatcher;
    this.apiKeys = new ApiKeys(this);
    this.usage = new Usage(this);
    this.metrics = new AccountMetrics(this);
    this.logs = new Logs(this);
    this.auditEvents = new AuditEvents(this);
    this.webhooks = new Webhooks(this);
    this.teams = new Teams(this);
    this.models = new Models(this);
    this.responses = new Responses(this);
  }

  /**
   * Public metadata of the gateway (`GET /v1/startups`): name, version, extensions.
   * @example
   * const info = await client.startups(); // { name, version, apiVersion: "v1", extensions }
   */
  startups(options?: RequestOptions): APIPromise<GatewayInfo> {
    return this.request({ method: ROUTES.startups.method, path: ROUTES.startups.path, auth: "none", schema: ROUTES.startups.answer.schema, options });
  }

  /**
   * The owner and scopes of the client's provisioning key (`GET /v1/account/whoami`, an extension
   * of this gateway; others answer `NotFoundError` with a code other than `key_not_found`).
   * @example
   * const { ownerId, scopes } = await client.whoami();
   */
  whoami(options?: RequestOptions): APIPromise<Principal> {
    return this.request({ method: ROUTES.whoami.method, path: ROUTES.whoami.path, auth: "provisioning", schema: ROUTES.whoami.answer.schema, options });
  }

  /**
   * Closes the connections of the client's own agent; a later call opens new ones. An injected
   * `dispatcher` is left open: its owner closes it.
   * @example
   * await client.close();
   */
  async close(): Promise<void> {
    const agent = this.#ownAgent;
    if (!agent) return;
    this.#ownAgent = undefined;
    this.#dispatcher = undefined;
    await agent.close();
  }

  /**
   * The one request path every resource uses: builds headers, picks the Idempotency-Key once,
   * attempts and retries, parses the answer with the contract. Public so gateway extensions can be
   * called with their contract schema; resources are the usual way in.
   * @example
   * const info = await client.request({ method: "GET", path: "/v1/startups", auth: "none", schema: GatewayInfo });
   */
  request<T>(spec: RequestSpec<T>): APIPromise<T> {
    return new APIPromise(this.#execute(spec));
  }

  /**
   * A list request whose answer is one page; the page fetches the next ones lazily.
   * @example
   * for await (const entry of client.requestPage({ path: "/v1/account/logs", auth: "provisioning", item: LogEntry })) {}
   */
  requestPage<Item>(spec: PageSpec<Item>): PagePromise<Item> {
    const schema = ListPage(spec.item) as unknown as z.ZodType<ListPage<Item>>;
    const request = `GET ${spec.path}`;
    const fetchPage = (cursor: string | undefined): PagePromise<Item> => {
      const query = { ...spec.query, after: cursor };
      const result = this.#execute({ ...spec, method: "GET", query, schema }).then(({ data, response }) => ({
        data: new Page(data, fetchPage, request, cursor),
        response,
      }));
      return new PagePromise(result);
    };
    const first = spec.query?.after;
    return fetchPage(typeof first === "string" ? first : undefined);
  }

  /** Sends a line to the logger, scrubbed of credentials. Used by resources for fallbacks. */
  log(level: keyof Logger, message: string, fields?: Record<string, unknown>): void {
    this.#logger?.[level](redact(message, this.#secrets()), fields);
  }

  async #execute<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    const options = spec.options ?? {};
    const request = `${spec.method} ${spec.path}`;
    const secrets = this.#secrets(options.apiKey);
    const maxRetries = count("maxRetries", options.maxRetries, this.#maxRetries);
    const timeoutMs = count("timeoutMs", options.timeoutMs, this.#timeoutMs);
    // Chosen once, before the first attempt: every retry must carry the same key, or a retry after
    // a lost answer would create a second key instead of replaying the first one's secret.
    const idempotencyKey = spec.method === "GET" ? undefined : this.#idempotencyKeyFor(options);
    const headers = this.#headers(spec, options, idempotencyKey);
    const path = this.#pathPrefix + spec.path + queryString(spec.query);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);

    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) throw new AbortError("aborted", `${request} was aborted by the caller's signal`);
      const outcome = await this.#attempt({ method: spec.method, path, headers, body, timeoutMs, signal: options.signal });
      const retryAfterMs = outcome.kind === "answer" ? retryAfterOf(outcome.headers) : undefined;
      const reason = retryReason(outcome);
      if (reason === undefined || attempt > maxRetries) {
        return this.#settle(spec, outcome, { request, attempt, idempotencyKey, retryAfterMs, secrets, timeoutMs });
      }
      const wait = retryDelay(attempt - 1, retryAfterMs, this.#backoff);
      this.log("warn", `retrying ${request} after ${reason} (attempt ${attempt + 1} of ${maxRetries + 1}) in ${wait}ms`, {
        method: spec.method,
        path: spec.path,
        reason,
        attempt: attempt + 1,
        delayMs: wait,
        idempotencyKey,
      });
      try {
        await this.#sleep(wait, options.signal);
      } catch (error) {
        if (!options.signal?.aborted) throw error;
        throw new AbortError("aborted", `${request} was aborted by the caller's signal while waiting to retry`);
      }
    }
  }

  /** One attempt. Always reads the body to the end: undici keeps a connection busy until it is consumed. */
  async #attempt(attempt: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: string | undefined;
    timeoutMs: number;
    signal: AbortSignal | undefined;
  }): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, attempt.timeoutMs);
    const relay = (): void => controller.abort();
    attempt.signal?.addEventListener("abort", relay, { once: true });
    try {
      const response = await this.#transport().request({
        origin: this.#origin,
        path: attempt.path,
        method: attempt.method as Dispatcher.HttpMethod,
        headers: attempt.headers,
        body: attempt.body ?? null,
        signal: controller.signal,
      });
      const text = await response.body.text();
      return { kind: "answer", status: response.statusCode, headers: response.headers, text };
    } catch (cause) {
      if (attempt.signal?.aborted) throw new AbortError("aborted", `${attempt.method} ${attempt.path} was aborted by the caller's signal`);
      if (isUndiciArgumentError(cause)) {
        const message = `the request could not be sent: ${messageOf(cause)}`;
        throw new InvalidArgumentError("invalid_argument", message, { cause, secrets: this.#secrets() });
      }
      return { kind: "failure", cause, timedOut };
    } finally {
      clearTimeout(timer);
      attempt.signal?.removeEventListener("abort", relay);
    }
  }

  /** Turns the last attempt into data or the right error. */
  #settle<T>(
    spec: RequestSpec<T>,
    outcome: Attempt,
    context: {
      request: string;
      attempt: number;
      idempotencyKey: string | undefined;
      retryAfterMs: number | undefined;
      secrets: (string | undefined)[];
      timeoutMs: number;
    },
  ): WithResponse<T> {
    const { request, attempt, secrets } = context;
    const tries = attempt === 1 ? "1 attempt" : `${attempt} attempts`;
    if (outcome.kind === "failure") {
      // The gateway may have acted; the caller can only find out by repeating with the same key.
      const unknownOutcome =
        spec.method === "GET"
          ? ""
          : `; the outcome is unknown: repeat the call with idempotencyKey ${context.idempotencyKey} to get its result`;
      if (outcome.timedOut) {
        const message = `${request} got no complete answer within ${context.timeoutMs}ms (${tries})${unknownOutcome}`;
        throw new TimeoutError("timeout", message, { cause: outcome.cause, secrets });
      }
      const message = `${request} failed before a complete answer arrived (${messageOf(outcome.cause)}; ${tries})${unknownOutcome}`;
      throw new ConnectionError("connection_error", message, { cause: outcome.cause, secrets });
    }
    const requestId = firstHeader(outcome.headers, "x-request-id") ?? firstHeader(outcome.headers, "request-id");
    if (outcome.status < 200 || outcome.status >= 300) {
      const json = tryJson(outcome.text);
      throw APIError.generate(outcome.status, json.ok ? json.value : undefined, {
        request,
        keyId: spec.keyId,
        teamId: spec.teamId,
        expectedVersion: spec.expectedVersion,
        retryAfterMs: context.retryAfterMs,
        requestId,
        secrets,
      });
    }
    const answer = parseAnswer(spec.schema, outcome.text);
    if (!answer.ok) throw new ResponseValidationError(outcome.status, answer.issues, request);
    return {
      data: answer.value,
      response: {
        status: outcome.status,
        requestId,
        replayed: firstHeader(outcome.headers, REPLAYED_HEADER) === "true",
        idempotencyKey: context.idempotencyKey,
        attempts: attempt,
      },
    };
  }

  #idempotencyKeyFor(options: RequestOptions): string {
    const key = options.idempotencyKey ?? this.#generateIdempotencyKey();
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new InvalidArgumentError("invalid_argument", "idempotencyKey must be 1 to 255 visible ASCII characters");
    }
    return key;
  }

  #headers(spec: RequestSpec<unknown>, options: ModelRequestOptions, idempotencyKey: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT };
    const credential = this.#credential(spec, options);
    if (credential !== undefined) {
      refuse(credentialProblem(credential));
      headers.authorization = `Bearer ${credential}`;
    }
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    if (idempotencyKey !== undefined) headers[IDEMPOTENCY_HEADER] = idempotencyKey;
    return headers;
  }

  #credential(spec: RequestSpec<unknown>, options: ModelRequestOptions): string | undefined {
    switch (spec.auth) {
      case "none":
        return undefined;
      case "optionalApiKey":
        return options.apiKey ?? this.#apiKey;
      case "apiKey": {
        const key = options.apiKey ?? this.#apiKey;
        if (!key) {
          const message = `${spec.method} ${spec.path} needs a regular API key: pass apiKey to new GatewayClient() or in the call's options`;
          throw new GatewayError("missing_credentials", message);
        }
        return key;
      }
      case "provisioning":
        if (!this.#provisioningKey) {
          const message = `${spec.method} ${spec.path} needs a provisioning key: pass provisioningKey to new GatewayClient()`;
          throw new GatewayError("missing_credentials", message);
        }
        return this.#provisioningKey;
    }
  }

  #transport(): Dispatcher {
    if (!this.#dispatcher) {
      this.#ownAgent = new Agent();
      this.#dispatcher = this.#ownAgent;
    }
    return this.#dispatcher;
  }

  #secrets(extra?: string): (string | undefined)[] {
    return [this.#provisioningKey, this.#apiKey, extra];
  }
}

/**
 * The retry policy, in one place. A mutation may be repeated only because every attempt carries the
 * same Idempotency-Key: the gateway replays its stored answer instead of acting twice. Returns why
 * to retry, or undefined for an answer that repeating cannot change.
 */
function retryReason(outcome: Attempt): string | undefined {
  // Reset, refused, closed or timed out: the request may or may not have reached the gateway. With
  // the same idempotency key, repeating it either performs it once or replays what was done.
  if (outcome.kind === "failure") return outcome.timedOut ? "a timeout" : `a connection error (${codeOf(outcome.cause)})`;
  const { status } = outcome;
  // The server gave up waiting for our request; nothing was done.
  if (status === 408) return "408";
  // Only `idempotency_in_flight`: the first attempt with this key is still running (its connection
  // dropped, we retried too soon). Once it finishes, a retry gets its answer replayed. Every other
  // 409 (`conflict`, `key_revoked`) is the key's real state: repeating must not overwrite it.
  if (status === 409) return envelopeCode(outcome.text) === "idempotency_in_flight" ? "409 idempotency_in_flight" : undefined;
  // Too many requests: wait as long as the gateway asks, then try again.
  if (status === 429) return "429";
  // The gateway or a proxy in front of it failed; the next attempt may reach a healthy one.
  if (status >= 500) return String(status);
  // Any other status is a definite answer the caller must act on (bad field, wrong key, not found).
  return undefined;
}

/** The server's retry hint: `retry-after-ms` (exact, as OpenAI's clients read it) before `Retry-After` (seconds or a date). */
function retryAfterOf(headers: Record<string, string | string[] | undefined>): number | undefined {
  const exact = headers["retry-after-ms"];
  const ms = Number(Array.isArray(exact) ? exact[0] : exact);
  if (exact !== undefined && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  return parseRetryAfter(headers["retry-after"], Date.now());
}

/** Throws what an internal check found wrong with an argument, as the SDK's `InvalidArgumentError`. */
function refuse(problem: ArgumentProblem): void {
  if (problem !== undefined) throw new InvalidArgumentError("invalid_argument", problem);
}

/** A count option (retries, milliseconds), or its fallback when left out. */
function count(name: string, value: number | undefined, fallback: number): number {
  refuse(countProblem(name, value));
  return value ?? fallback;
}
