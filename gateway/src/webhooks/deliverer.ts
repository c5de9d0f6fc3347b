import { Agent, request } from "undici";
import { WEBHOOK_LIMITS } from "@gateway-keys/contract";
import type { ReplyCipher } from "../crypto";
import type { GatewayMetrics } from "../ops/metrics";
import type { ClaimedDelivery } from "../store/events/event-rows";
import type { DeliveryOutcome } from "../store/events/event-tables";
import type { Store } from "../store/types";
import { secretScope } from "./webhook-records";
import { signatureHeader } from "./signing";
import { assertTargetAllowed, guardedLookup } from "./target-guard";

/** How the deliverer works; every field has a default fit for production. */
export interface DelivererOptions {
  /** Allow loopback, private and link-local targets (`--webhook-allow-private-targets`; tests use it). Default false. */
  allowPrivateTargets?: boolean;
  /** Bound on one attempt, connect to last byte. Default 10 s. */
  attemptTimeoutMs?: number;
  /** How often due deliveries are looked for. Default 500 ms. */
  pollIntervalMs?: number;
  /** How long a claimed delivery is this process's before another may take it (a crash lets go after this). Default 60 s. */
  leaseMs?: number;
  /** The first retry's delay; each next one doubles, up to `maxRetryDelayMs`. Default 30 s. */
  retryBaseMs?: number;
  /** Default 4 h: with 12 attempts, a delivery is retried for about 13 hours before it fails. */
  maxRetryDelayMs?: number;
  /** Attempts before a delivery is marked `failed`. Default 12. */
  maxAttempts?: number;
  /** Deliveries claimed at once. Default 16. */
  batchSize?: number;
}

/** The delay before attempt `attempts + 1`: doubling from the base, capped, with up to 20% jitter so retries of many deliveries spread. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(plain * (0.8 + Math.random() * 0.2));
}

/**
 * Sends the outbox's deliveries: at least once each, retried with backoff, then marked failed.
 * Deliveries are leased in the database (PostgreSQL: FOR UPDATE SKIP LOCKED), so of N processes
 * each delivery has one deliverer at a time, and one that crashed mid-delivery is taken over when
 * its lease ends (the receiver may then see that event twice, under the same `webhook-id`).
 */
export class WebhookDeliverer {
  readonly #store: Store;
  readonly #cipher: ReplyCipher;
  readonly #now: () => number;
  readonly #metrics: GatewayMetrics | undefined;
  readonly #options: Required<DelivererOptions>;
  readonly #agent: Agent;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #started = false;
  /** A nudge that came while a pass ran: run again at once after it. */
  #again = false;

  constructor(store: Store, cipher: ReplyCipher, now: () => number, metrics: GatewayMetrics | undefined, options: DelivererOptions = {}) {
    this.#store = store;
    this.#cipher = cipher;
    this.#now = now;
    this.#metrics = metrics;
    this.#options = {
      allowPrivateTargets: false,
      attemptTimeoutMs: 10_000,
      pollIntervalMs: 500,
      leaseMs: 60_000,
      retryBaseMs: 30_000,
      maxRetryDelayMs: 4 * 3_600_000,
      maxAttempts: WEBHOOK_LIMITS.maxAttempts,
      batchSize: 16,
      ...options,
    };
    this.#agent = new Agent({
      connect: { lookup: guardedLookup(this.#options.allowPrivateTargets), timeout: this.#options.attemptTimeoutMs },
      headersTimeout: this.#options.attemptTimeoutMs,
      bodyTimeout: this.#options.attemptTimeoutMs,
    });
  }

  start(): void {
    this.#started = true;
    this.#tick();
  }

  #tick(): void {
    if (this.#stopped) return;
    this.#again = false;
    this.#running = this.runOnce().then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      this.#running = undefined;
      if (this.#stopped) return;
      this.#timer = setTimeout(() => this.#tick(), this.#again ? 0 : this.#options.pollIntervalMs);
    });
  }

  /**
   * Looks for due deliveries now rather than at the next poll: called after this process committed
   * an event, so its delivery waits for no timer. Other processes find it at their next poll.
   */
  nudge(): void {
    if (!this.#started || this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await this.#agent.close();
  }

  /** Claims the due deliveries and attempts each once; resolves when every attempt is recorded. Returns how many were attempted. */
  async runOnce(): Promise<number> {
    const now = this.#now();
    const claimed = await this.#store.transaction((tx) => tx.events.claimDueDeliveries(now, now + this.#options.leaseMs, this.#options.batchSize));
    await Promise.all(claimed.map((delivery) => this.#attempt(delivery)));
    return claimed.length;
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const error = await this.#send(delivery).then(
      () => null,
      (failure: unknown) => describe(failure),
    );
    const now = this.#now();
    const attempts = delivery.attempts + 1;
    let outcome: DeliveryOutcome;
    if (error === null) {
      outcome = { status: "delivered", attempts, lastError: null, nextAttemptAt: null, deliveredAt: now };
      this.#metrics?.webhookAttempt("sent", (now - delivery.createdAt) / 1000);
    } else if (attempts >= this.#options.maxAttempts) {
      outcome = { status: "failed", attempts, lastError: error, nextAttemptAt: null, deliveredAt: null };
      this.#metrics?.webhookAttempt("failed");
    } else {
      const next = now + retryDelayMs(attempts, this.#options.retryBaseMs, this.#options.maxRetryDelayMs);
      outcome = { status: "pending", attempts, lastError: error, nextAttemptAt: next, deliveredAt: null };
      this.#metrics?.webhookAttempt("retried");
    }
    await this.#store.transaction((tx) => tx.events.finishDelivery(delivery.seq, outcome));
  }

  /** One POST of the event's body, signed with every secret that signs now; resolves on a 2xx answer. */
  async #send(delivery: ClaimedDelivery): Promise<void> {
    const url = new URL(delivery.url);
    assertTargetAllowed(url, this.#options.allowPrivateTargets);
    const now = this.#now();
    const secrets = [delivery.sealedSecret, ...(delivery.sealedPreviousSecret && delivery.previousSecretExpiresAt !== null && now < delivery.previousSecretExpiresAt ? [delivery.sealedPreviousSecret] : [])]
      .map((sealed) => this.#cipher.open(sealed, secretScope(delivery.webhookId)))
      .filter((secret): secret is string => secret !== undefined);
    if (secrets.length === 0) throw new Error("the endpoint's signing secret cannot be read with this gateway's encryption key");
    const timestamp = Math.floor(now / 1000);
    const response = await request(url, {
      method: "POST",
      dispatcher: this.#agent,
      body: delivery.payload,
      headers: {
        "content-type": "application/json",
        "user-agent": "gateway-keys-webhooks",
        "webhook-id": delivery.eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, delivery.eventId, timestamp, delivery.payload),
      },
      signal: AbortSignal.timeout(this.#options.attemptTimeoutMs),
    });
    // Always consume the body, or the connection is not reused.
    await response.body.dump();
    if (response.statusCode < 200 || response.statusCode > 299) throw new Error(`the endpoint answered HTTP ${response.statusCode}`);
  }
}

/** A short reason for `lastError`: a status, a timeout, a refused address; never a header or a secret. */
function describe(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure).slice(0, 300);
  const code = (failure as { code?: string }).code;
  if (failure.name === "TimeoutError" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT") {
    return "the attempt timed out";
  }
  return (code ? `${code}: ${failure.message}` : failure.message).slice(0, 300);
}
