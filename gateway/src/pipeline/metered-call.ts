import type { FastifyReply } from "fastify";
import { formatUnits, type ModelFamily } from "@gateway-keys/contract";
import type { GatewayContext } from "../context";
import { GatewayError } from "../errors";
import type { MediaFamily } from "../inference/media-wire";
import type { CatalogModel, MediaModelOf, ModelOf } from "../models/catalog";
import { affordableOutputTokens, costOf, type ModelPricing } from "../metering/pricing";
import { logEntryFor } from "../policies/logging-policy";
import { modelAllowed } from "../policies/model-policy";
import type { SpendReservation } from "../metering/ledger";
import type { RateAdmission, RequestOutcome, StoredApiKey, StoredTeam } from "../store/types";
import type { MeteredKey, RateSubject } from "../metering/interfaces";
import { meteredKeyOf } from "./metered-key";
import { rateLimitHeaders, rateLimitRefusal } from "../metering/rate-limits";
import type { TextUsage } from "../inference/text";
import type { Context, Span } from "@opentelemetry/api";
import { traceContextOf } from "../telemetry/request-spans";
import { GATEWAY_ATTRIBUTES } from "../telemetry/tracing";
import { GEN_AI, GEN_AI_OPERATION } from "../telemetry/genai";

/** What metering needs of a model: its price. */
type PricedModel = { pricing: ModelPricing };

/** Where each family is served, for messages that point a client to the right endpoint. */
const ENDPOINT_OF: Record<ModelFamily, string> = {
  chat: "/v1/chat/completions, /v1/responses or /v1/messages",
  embeddings: "/v1/embeddings",
  images: "/v1/images/generations",
  speech: "/v1/audio/speech",
  transcription: "/v1/audio/transcriptions",
  moderation: "/v1/moderations",
};

function isOfFamily<Family extends ModelFamily>(model: CatalogModel, family: Family): model is ModelOf<Family> {
  return model.family === family;
}

/** Tokens a request uses, as the rate limits count them: a token-priced model's input and output; none for other units. */
function tokensOf(model: PricedModel, usage: TextUsage): number {
  return model.pricing.unit === "tokens" ? usage.inputTokens + usage.outputTokens : 0;
}

/** The rate limit policies a request of `key` is admitted under, key first: its own and its team's, each when set. */
function rateSubjectsOf(key: StoredApiKey, team: StoredTeam | null): RateSubject[] {
  const subjects: RateSubject[] = [];
  if (key.rateLimitPolicy) subjects.push({ id: key.id, policy: key.rateLimitPolicy });
  if (team?.rateLimitPolicy) subjects.push({ id: team.id, policy: team.rateLimitPolicy });
  return subjects;
}

/**
 * One model request under the key's policies, whatever its family or wire: the model must exist
 * and serve this endpoint's family, the model policy must allow it, the rate limit policy must
 * admit it (its `x-ratelimit-*` headers go on the reply), and the most the request can cost is
 * reserved before the model runs (so concurrent requests never overshoot the spend limit); the
 * actual cost is settled once known, and the rate admission released with the tokens used. Every
 * outcome, refusals included, gets its log row and usage counters, as the key's logging policy says.
 */
export class MeteredCall {
  readonly #ctx: GatewayContext;
  readonly #reply: FastifyReply;
  readonly #key: StoredApiKey;
  readonly #modelId: string;
  /** The request's text for its log row: kept only when the key's logging policy stores requests (a stream holds it for its whole life). */
  readonly #input: string;
  #droppedFields: readonly string[] = [];
  #route: string | null = null;
  /** The tokens the settled charge counted, when it said (a stream cut before its end does not). */
  chargedTokens: number | undefined;
  readonly #now: number;
  #reservation: SpendReservation | undefined;
  /** The request's place under the rate limit policies of its key and its key's team. */
  #admission: RateAdmission | undefined;
  /** The key's team as this request found it (read once, in {@link admit}); null for none. */
  #team: StoredTeam | null | undefined;
  #settled = false;
  /** The request's trace: the reservation and the charge are spans of it, and its server span gets the model, usage and cost. */
  readonly #trace: Context;
  readonly #serverSpan: Span | undefined;

  constructor(ctx: GatewayContext, reply: FastifyReply, key: StoredApiKey, modelId: string, input: string) {
    this.#ctx = ctx;
    this.#reply = reply;
    this.#trace = traceContextOf(reply.request);
    this.#serverSpan = reply.request.trace?.span.isRecording() ? reply.request.trace.span : undefined;
    this.#key = key;
    this.#modelId = modelId;
    this.#input = key.loggingPolicy.storeRequest ? input : "";
    this.#now = ctx.now();
  }

  /**
   * The model, if it exists (`model`: the catalog's model of the call's id, looked up once by the
   * caller), serves `family` and the key may call it; otherwise the refusal is recorded and thrown.
   */
  async admit<Family extends ModelFamily>(family: Family, model: CatalogModel | undefined): Promise<ModelOf<Family>> {
    this.#serverSpan?.setAttributes({ [GEN_AI.operationName]: GEN_AI_OPERATION[family], [GEN_AI.requestModel]: this.#modelId });
    const name = JSON.stringify(this.#modelId);
    if (!model) {
      return this.#refuse(new GatewayError("model_not_found", `No model ${name}; GET /v1/models lists the models.`, { param: "model" }), "failed");
    }
    if (!isOfFamily(model, family)) {
      return this.#refuse(
        new GatewayError("validation_failed", `Invalid fields: model: ${name} is a ${model.family} model; use ${ENDPOINT_OF[model.family]}.`, { param: "model" }),
        "failed",
      );
    }
    if (!modelAllowed(this.#key, this.#modelId)) {
      return this.#refuse(new GatewayError("model_not_allowed", `This key's model policy does not allow ${name}.`, { param: "model" }), "rejected");
    }
    // A team in the cache is taken without an await: a key in a team costs no extra turn of the event loop.
    if (this.#cachedTeam() === undefined) await this.#readTeam();
    const team = this.#knownTeam();
    if (team && !modelAllowed(team, this.#modelId)) {
      return this.#refuse(
        new GatewayError("model_not_allowed", `The model policy of this key's team ${team.id} does not allow ${name}.`, { param: "model", teamId: team.id }),
        "rejected",
      );
    }
    return model;
  }

  /** {@link admit} for a media family, typed as the family's model (its engine, or its routes). */
  async admitMedia<Family extends MediaFamily>(family: Family, model: CatalogModel | undefined): Promise<MediaModelOf<Family>> {
    // What ModelOf<Family> is for a media family; TypeScript cannot see through the generic Extract.
    return (await this.admit(family, model)) as unknown as MediaModelOf<Family>;
  }

  /** Admits the request under the rate limit policy and reserves what `bound` (the most it can use) costs, or records and throws 429 or 402. */
  async reserve(model: PricedModel, bound: TextUsage): Promise<void> {
    await this.reserveMicros(costOf(model.pricing, bound), tokensOf(model, bound));
  }

  /**
   * Admits and reserves a text request of `choices` answers of up to `outputBound` output tokens
   * each, and returns the output bound reserved. Its input is `input.bound` tokens in the
   * reservation (the most its routes can count) and `input.estimate` under the rate limit policy
   * (its tokens as the gateway counts them). When the client set no bound (`clientBound` false) and
   * the key cannot afford the model's whole output, the bound shrinks to what its remaining budget
   * affords: the request is refused (402) only when its input and one output token do not fit.
   */
  reserveText(model: ModelOf<"chat">, input: { estimate: number; bound: number }, outputBound: number, clientBound: boolean, choices = 1): Promise<number> {
    return this.#ctx.tracing.inSpan("gateway.reserve", this.#trace, async (span) => {
      const reserved = await this.#reserveText(model, input, outputBound, clientBound, choices);
      this.#noteReserved(span);
      return reserved;
    });
  }

  async #reserveText(model: ModelOf<"chat">, input: { estimate: number; bound: number }, outputBound: number, clientBound: boolean, choices: number): Promise<number> {
    const inputTokens = input.bound;
    const costFor = (outputTokens: number) => costOf(model.pricing, { inputTokens, outputTokens: outputTokens * choices });
    if (clientBound) {
      await this.#reserveMicros(costFor(outputBound), input.estimate + outputBound * choices);
      return outputBound;
    }
    await this.#admitRate(input.estimate + outputBound * choices);
    const affordable = await this.#releasingOnError(async () => {
      const metered = this.#metered();
      this.#reservation = await this.#ctx.spend.reserve(metered, costFor(outputBound), this.#now);
      if (this.#reservation) return outputBound;
      const headroom = await this.#ctx.spend.headroom(metered, this.#now);
      const total = headroom === null || model.pricing.unit !== "tokens" ? 0 : affordableOutputTokens(model.pricing, inputTokens, headroom, outputBound * choices);
      const tokens = Math.floor(total / choices);
      if (tokens < 1) return 0;
      this.#reservation = await this.#ctx.spend.reserve(metered, costFor(tokens), this.#now);
      return this.#reservation ? tokens : 0;
    });
    if (affordable >= 1) return affordable;
    return this.#refuseSpend(costFor(1), "This request's input and one output token would cost");
  }

  /** Admits a request of up to `tokens` tokens under the rate limit policy and reserves `maxCostMicros`, the most it can cost, or records and throws 429 or 402. */
  reserveMicros(maxCostMicros: bigint, tokens = 0): Promise<void> {
    return this.#ctx.tracing.inSpan("gateway.reserve", this.#trace, async (span) => {
      await this.#reserveMicros(maxCostMicros, tokens);
      this.#noteReserved(span);
    });
  }

  /** The reservation's credits on its span. */
  #noteReserved(span: Span): void {
    if (span.isRecording() && this.#reservation) span.setAttribute(GATEWAY_ATTRIBUTES.reservedUnits, formatUnits(this.#reservation.micros));
  }

  async #reserveMicros(maxCostMicros: bigint, tokens: number): Promise<void> {
    await this.#admitRate(tokens);
    const reservation = await this.#releasingOnError(async () => this.#ctx.spend.reserve(this.#metered(), maxCostMicros, this.#now));
    if (!reservation) await this.#refuseSpend(maxCostMicros, "This request could cost up to");
    this.#reservation = reservation;
  }

  /**
   * The 402 of a request its spend did not fit, naming the window that could not afford it: a
   * window of the key's own policy (`spend_limit_reached`) or of its team's (`team_budget_exceeded`).
   */
  async #refuseSpend(micros: bigint, costs: string): Promise<never> {
    const refusal = await this.#ctx.spend.refusal(this.#metered(), micros, this.#now).catch(() => undefined);
    const window = refusal && {
      resetPeriod: refusal.resetPeriod,
      resetsAt: refusal.resetsAt === null ? null : new Date(refusal.resetsAt).toISOString(),
    };
    const which = window ? (window.resetsAt === null ? `its lifetime (${window.resetPeriod}) window` : `its ${window.resetPeriod} window, which resets at ${window.resetsAt}`) : "its spend limit";
    if (refusal?.level === "team") {
      return this.#refuse(
        new GatewayError(
          "team_budget_exceeded",
          `${costs} ${formatUnits(micros)} units, more than is left under the spend policy of this key's team ${refusal.subjectId} in ${which}; raise the team's spendPolicy or wait for the reset.`,
          { teamId: refusal.subjectId, ...(window && { window }) },
        ),
        "rejected",
      );
    }
    return this.#refuse(
      new GatewayError(
        "spend_limit_reached",
        `${costs} ${formatUnits(micros)} units, more than is left under the key's spend limit in ${which}; raise spendPolicy.limitUnits to continue.`,
        window ? { window } : {},
      ),
      "rejected",
    );
  }

  /**
   * The key's team as this request found it, when known without a read: `null` for a key in no
   * team, `undefined` until read. The first call (from {@link admit}) takes it from the team cache.
   */
  #cachedTeam(): StoredTeam | null | undefined {
    if (this.#team === undefined) {
      const teamId = this.#key.teamId;
      if (teamId === null) this.#team = null;
      else {
        const cached = this.#ctx.teams.cached(teamId);
        if (cached) this.#team = cached.ownerId === this.#key.ownerId ? cached : null;
      }
    }
    return this.#team;
  }

  /** Reads the key's team through the team cache (a key in a team whose team is not cached); null for a team gone. */
  async #readTeam(): Promise<void> {
    this.#team = (await this.#ctx.teams.find(this.#key.ownerId, this.#key.teamId!)) ?? null;
  }

  /** The key's team as {@link admit} found it (null for none): every reservation and limit of the request uses that one reading. */
  #knownTeam(): StoredTeam | null {
    if (this.#team === undefined) throw new Error("a model call reserved before it was admitted (its team is not known)");
    return this.#team;
  }

  /** The key as metering takes it: with its team's windows, when it is in a team (one object per key and team version, {@link meteredKeyOf}). */
  #metered(): MeteredKey {
    const team = this.#knownTeam();
    return team ? meteredKeyOf(this.#key, team) : this.#key;
  }

  /**
   * Reserves `bound`, runs the model, and settles what it used: the whole life of a call that
   * answers at once. Returns the model's result and what it was charged.
   */
  async run<Result>(
    model: PricedModel,
    bound: TextUsage,
    work: () => Promise<{ result: Result; usage: TextUsage; output: string | null }>,
  ): Promise<{ result: Result; costMicros: bigint }> {
    await this.reserve(model, bound);
    let done: Awaited<ReturnType<typeof work>>;
    try {
      done = await work();
    } catch (error) {
      await this.fail(error instanceof GatewayError ? error.statusCode : 502);
      throw error;
    }
    return { result: done.result, costMicros: await this.succeed(model, done.usage, done.output) };
  }

  /** The route that answered (`provider/model`): recorded with the call's log row. */
  noteRoute(route: string): void {
    this.#route = route;
  }

  /** The request's fields the answering model did not get: recorded with the call's log row. */
  noteDroppedFields(fields: readonly string[]): void {
    this.#droppedFields = fields;
  }

  /**
   * Charges what `usage` costs and records the answer; resolves once committed. Returns the cost.
   * Under a spend limit the charge is never more than the reservation, so the limit is never
   * passed: the reservation is the most the request can be counted (inference/input-bound.ts), so
   * this cap holds back only what a provider counted from outside the request. A key without a
   * limit is charged what the provider reported, however much that is.
   */
  async succeed(model: PricedModel, usage: TextUsage, output: string | null): Promise<bigint> {
    this.#serverSpan?.setAttributes({ [GEN_AI.inputTokens]: usage.inputTokens, [GEN_AI.outputTokens]: usage.outputTokens });
    return this.succeedMicros(costOf(model.pricing, usage), output, tokensOf(model, usage));
  }

  /**
   * {@link succeed} for a cost already known in micro-credits (a forwarded media request, measured
   * by its family's unit); `usedTokens` unknown counts every token the request was admitted with.
   */
  async succeedMicros(cost: bigint, output: string | null, usedTokens?: number): Promise<bigint> {
    const reservation = this.#requireReservation();
    const limited = this.#key.spendLimitMicros !== null || (this.#team?.spendWindows.length ?? 0) > 0;
    const costMicros = !limited || cost < reservation.micros ? cost : reservation.micros;
    await this.#settle(reservation, 200, costMicros, output, "succeeded", usedTokens);
    return costMicros;
  }

  /**
   * Ends a call that cannot say what it used — a stream cut or failed before its end — by charging
   * what it may have used, `usage` (its input as counted, its whole output bound), never more than
   * the reservation. Safe to call after settling (no-op).
   */
  async chargeUnfinished(model: PricedModel, status: number, usage: TextUsage, output: string | null): Promise<void> {
    const reservation = this.#requireReservation();
    const cost = costOf(model.pricing, usage);
    await this.#settle(reservation, status, cost < reservation.micros ? cost : reservation.micros, output, "succeeded");
  }

  /** Ends a call whose model failed before answering: nothing is charged. Safe to call after settling (no-op). */
  async fail(status: number): Promise<void> {
    if (this.#settled || !this.#reservation) return;
    await this.#settle(this.#reservation, status, 0n, null, "failed", 0);
  }

  /**
   * Takes the request's place under the rate limit policies of its key and of its key's team, in
   * one step under both or under neither (none: nothing to take), or records and throws 429
   * naming the policy that refused. The team's is counted under the team's id across every
   * process: its keys together.
   */
  async #admitRate(tokens: number): Promise<void> {
    const team = this.#knownTeam();
    const subjects = rateSubjectsOf(this.#key, team);
    if (subjects.length === 0) return;
    const verdict = await this.#ctx.rates.admit(subjects, tokens, this.#now);
    if (verdict.refusal) {
      const refusing = subjects[verdict.refusal.subject]!;
      const teamId = refusing.id === this.#key.id ? undefined : team!.id;
      const figures = verdict.figures[verdict.refusal.subject] ?? {};
      return this.#refuse(rateLimitRefusal(verdict.refusal, figures, refusing.policy, tokens, teamId), "rejected");
    }
    this.#admission = verdict.admission!;
    // The first subject's figures: the key's own when it has a policy, else its team's.
    this.#reply.headers(rateLimitHeaders(verdict.figures[0]!));
  }

  /** Runs `work`; should it throw (the database failed), the rate admission is given back first, so no place in flight leaks. */
  async #releasingOnError<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.#releaseRate(0);
      throw error;
    }
  }

  /** Gives the rate admission back (the tokens not used, the places in flight); a failure only costs the key and team those tokens until they drain. */
  async #releaseRate(usedTokens: number | undefined): Promise<void> {
    const admission = this.#admission;
    if (!admission) return;
    this.#admission = undefined;
    try {
      await this.#ctx.rates.release(admission, Math.min(usedTokens ?? admission.tokens, admission.tokens), this.#ctx.now());
    } catch (error) {
      this.#reply.log.warn({ err: error }, "a rate limit release failed; its slots lapse with their lease");
    }
  }

  async #settle(
    reservation: SpendReservation,
    status: number,
    costMicros: bigint,
    output: string | null,
    outcome: RequestOutcome,
    usedTokens?: number,
  ): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    this.chargedTokens = usedTokens;
    const entry = logEntryFor(this.#key, { model: this.#modelId, status, costMicros, input: this.#input, output, droppedFields: this.#droppedFields, route: this.#route }, this.#now);
    // Built only for a recorded request (its charge span is recorded too): most are not sampled.
    const cost = this.#serverSpan ? { [GATEWAY_ATTRIBUTES.costUnits]: formatUnits(costMicros) } : undefined;
    if (cost) this.#serverSpan!.setAttributes(cost);
    try {
      await this.#ctx.tracing.inSpan("gateway.charge", this.#trace, () => this.#ctx.spend.settle(reservation, entry, outcome), cost);
    } finally {
      await this.#releaseRate(usedTokens);
    }
  }

  async #refuse(error: GatewayError, outcome: Exclude<RequestOutcome, "succeeded">): Promise<never> {
    // A request refused after its rate admission (its spend did not fit) used no tokens.
    await this.#releaseRate(0);
    const entry = logEntryFor(this.#key, { model: this.#modelId, status: error.statusCode, costMicros: 0n, input: this.#input, output: null, droppedFields: [], route: null }, this.#now);
    await this.#ctx.spend.recordUncharged(entry, outcome);
    throw error;
  }

  #requireReservation(): SpendReservation {
    if (!this.#reservation) throw new Error("a model call settled before it reserved its spend");
    return this.#reservation;
  }
}
