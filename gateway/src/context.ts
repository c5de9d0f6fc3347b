import type { FastifyRequest } from "fastify";
import type { Scope } from "@gateway-keys/contract";
import type { KeyCache } from "./store/key-cache";
import type { TeamCache } from "./store/team-cache";
import type { SecretUseTracker } from "./keys/secret-use-tracker";
import type { ReplyCipher } from "./crypto";
import { GatewayError } from "./errors";
import type { ModelCatalog } from "./models/catalog";
import type { Ledger } from "./metering";
import type { CredentialThrottle } from "./http/credential-throttle";
import type { RateLimits, Store, StoredApiKey } from "./store/types";
import type { GatewayTracing } from "./telemetry/tracing";
import type { Router } from "./dispatch/router";

/** What every route and hook of one app shares. Built once by `createApp`. */
export interface GatewayContext {
  store: Store;
  /** Current time in ms, from the injected clock. */
  now: () => number;
  cipher: ReplyCipher;
  idempotencyTtlMs: number;
  credentialThrottle: CredentialThrottle;
  models: ModelCatalog;
  /** Regular keys by secret hash, for the look-up of every model request. */
  keys: KeyCache;
  /** Teams by id, for the look-up of every model request of a key in a team. */
  teams: TeamCache;
  /** Extension `secret_use`: which secret of which key each request presented, flushed to the store every few seconds. */
  secretUse: SecretUseTracker;
  /** Spend reservations and charges of model requests. */
  spend: Ledger;
  /** Keys' rate limit policies: admissions and releases of model requests. */
  rates: RateLimits;
  /** How each request spreads over its model's routes: strategies, quotas, cooldowns (docs/operators/routing.md). */
  router: Router;
  /** Spans of this gateway's requests (docs/operators/operations.md#traces); no-ops unless tracing is configured. */
  tracing: GatewayTracing;
  /** Whether the web console is served (`/console`), and so whether its session cookie signs in account reads. */
  consoleEnabled: boolean;
  /**
   * Whether a provisioning key may sign in to the console (and its sessions read). Off when the
   * console signs people in through OpenID Connect only (`--no-console-key-sign-in`).
   */
  consoleKeySignIn: boolean;
  /** Whether people sign in to the console through OpenID Connect (`--console-oidc`); without it, a person's session reads nothing. */
  consoleOidcSignIn: boolean;
}

/** A person signed in to the console through OpenID Connect: the provider's subject and the email it gave, if any. */
export interface ConsolePerson {
  subject: string;
  email: string | null;
}

/**
 * An owner a person signed in to the console may view, read-only: all of it (`teamIds` null), or
 * only these of its teams and the keys in them (docs/console.md#what-a-person-may-view).
 */
export interface ViewableOwner {
  ownerId: string;
  teamIds: readonly string[] | null;
}

/**
 * Who is calling an account endpoint: a provisioning key and the owner it is bound to, or a person
 * signed in to the console through OpenID Connect, reading one of the owners they may view.
 */
export interface AccountPrincipal {
  ownerId: string;
  /** The calling provisioning key; null for a person (who holds none). */
  provisioningKeyId: string | null;
  /** Prefix and last four characters of the calling provisioning key; null for a person. */
  hint: string | null;
  /** The person signed in to the console, or null for a provisioning key. */
  person: ConsolePerson | null;
  scopes: readonly Scope[];
  /**
   * Null: the whole owner (a provisioning key; a person an access rule gives the owner). Else the
   * only teams of the owner the caller may view — a person the rules give some teams only — and
   * with them the keys in those teams: every read filters by it (auth/team-view.ts).
   */
  onlyTeams: readonly string[] | null;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the provisioning-key hook on `/v1/account/*`; read it with {@link accountOf}. */
    account: AccountPrincipal | null;
    /** Set by the regular-key hook on model endpoints; read it with {@link apiKeyOf}. */
    apiKey: StoredApiKey | null;
    /** Set on account mutations once the header has been checked; read it with {@link idempotencyKeyOf}. */
    idempotencyKey: string | null;
  }
}

/** A route that reads what its hook did not set is a wiring mistake of ours, never the client's. */
function missing(what: string): GatewayError {
  return new GatewayError("internal_error", `The gateway failed to handle the request (${what} not checked); it is safe to retry.`);
}

/** The caller of an account route (its `requireProvisioningKey` hook ran). */
export function accountOf(request: FastifyRequest): AccountPrincipal {
  if (!request.account) throw missing("provisioning key");
  return request.account;
}

/** The key of a model route that requires one (its `requireApiKey` hook ran). */
export function apiKeyOf(request: FastifyRequest): StoredApiKey {
  if (!request.apiKey) throw missing("API key");
  return request.apiKey;
}

/** The Idempotency-Key of an account mutation (its `requireIdempotencyKey` hook ran). */
export function idempotencyKeyOf(request: FastifyRequest): string {
  if (request.idempotencyKey === null) throw missing("Idempotency-Key");
  return request.idempotencyKey;
}
