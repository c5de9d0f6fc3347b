import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { keyKindOf, SCOPES, type Scope } from "@gateway-keys/contract";
import type { AccountPrincipal, ConsolePerson, GatewayContext, ViewableOwner } from "../context";
import { hashesEqual, sha256 } from "../crypto";
import { isExpired, matchSecret, type SecretMatch } from "../keys/key-records";
import { GatewayError } from "../errors";
import type { StoredApiKey, StoredProvisioningKey } from "../store/types";
import { consoleSessionOf } from "./console-session";
import { bearerToken, modelCredential } from "./credentials";
import { traceContextOf } from "../telemetry/request-spans";
import { GATEWAY_ATTRIBUTES } from "../telemetry/tracing";

// Our decision: the kind of a key is part of its format (gwk_ / gwp_), so a well-formed key of the
// wrong kind gets 403 wrong_key_kind before any look-up; that tells the caller exactly which key
// to use and reveals nothing a format check would not.
const WRONG_KIND_ON_ACCOUNT =
  "This is a regular API key (gwk_…); /v1/account/* takes a provisioning key (gwp_…) in Authorization: Bearer.";
const WRONG_KIND_ON_MODELS = "This is a provisioning key (gwp_…); model endpoints take a regular API key (gwk_…).";
const MALFORMED = "The key is not well-formed (wrong prefix, length or checksum); check that it was copied whole.";

/**
 * Authenticates `Authorization: Bearer <provisioning key>` (or, on a GET with the console on, the
 * console's session cookie), applies the rate limit and checks that the caller carries `scope`
 * (`"any"`: only authentication). Sets `request.account`.
 */
export function requireProvisioningKey(ctx: GatewayContext, scope: Scope | "any"): onRequestAsyncHookHandler {
  return async (request) => {
    const account = await principalOf(ctx, request, scope);
    ctx.credentialThrottle.take(account.provisioningKeyId === null ? `person:${account.person!.subject}` : `pk:${account.provisioningKeyId}`, ctx.now());
    if (scope !== "any" && !account.scopes.includes(scope)) {
      throw new GatewayError("missing_scope", `This provisioning key lacks the scope ${scope}; use a key that carries it.`);
    }
    request.account = account;
  };
}

/**
 * The caller of an account request. The console signs in once (with a provisioning key, or a
 * person through OpenID Connect) and then reads with its session cookie, which only a GET may use:
 * nothing the console does can change a key. A key's session ends the moment its provisioning key
 * is revoked (the key is looked up on every request, as a bearer key is).
 */
async function principalOf(ctx: GatewayContext, request: FastifyRequest, scope: Scope | "any"): Promise<AccountPrincipal> {
  const secret = bearerToken(request.headers);
  if (secret === undefined) {
    const session = ctx.consoleEnabled && request.method === "GET" ? consoleSessionOf(ctx, request) : undefined;
    if (session?.kind === "person" && ctx.consoleOidcSignIn) return personPrincipal(request, session.person, session.owners, scope);
    if (session?.kind === "key" && ctx.consoleKeySignIn) {
      const key = await validProvisioningKey(ctx, session.provisioningKeyHash, "The console session's provisioning key is no longer valid; sign in again.");
      viewedOwner(request, [key.ownerId]);
      return keyPrincipal(key);
    }
    throw new GatewayError("invalid_credentials", "Send a provisioning key as Authorization: Bearer <key>.");
  }
  const kind = keyKindOf(secret);
  if (kind === undefined) throw new GatewayError("invalid_credentials", MALFORMED);
  if (kind === "regular") throw new GatewayError("wrong_key_kind", WRONG_KIND_ON_ACCOUNT);
  return keyPrincipal(await validProvisioningKey(ctx, sha256(secret), "The provisioning key is not valid; it may have been revoked or never existed."));
}

function keyPrincipal(key: StoredProvisioningKey): AccountPrincipal {
  return { ownerId: key.ownerId, provisioningKeyId: key.id, hint: key.hint, person: null, scopes: key.scopes, onlyTeams: null };
}

/** The console's header naming which of a person's owners a read is for (the first, in order, without it). */
export const CONSOLE_OWNER_HEADER = "x-console-owner";

/**
 * A person signed in through OpenID Connect reads one of their owners at a time — whole, or only
 * the teams the access rules give them of it — with the read scopes only, and only what a read
 * scope guards (not `"any"`: `whoami` describes a provisioning key).
 */
function personPrincipal(request: FastifyRequest, person: ConsolePerson, owners: readonly ViewableOwner[], scope: Scope | "any"): AccountPrincipal {
  if (scope === "any" || !PERSON_SCOPES.includes(scope)) {
    throw new GatewayError("missing_scope", "A console session signed in through OpenID Connect only reads keys and usage.");
  }
  const ownerId = viewedOwner(request, owners.map((owner) => owner.ownerId));
  const { teamIds } = owners.find((owner) => owner.ownerId === ownerId)!;
  return { ownerId, provisioningKeyId: null, hint: null, person, scopes: PERSON_SCOPES, onlyTeams: teamIds };
}

/** The owner a console session reads: the one `x-console-owner` names (refused unless the session may view it), else its first. */
function viewedOwner(request: FastifyRequest, owners: readonly string[]): string {
  const asked = request.headers[CONSOLE_OWNER_HEADER];
  if (Array.isArray(asked)) throw new GatewayError("validation_failed", `Send the ${CONSOLE_OWNER_HEADER} header once.`, { param: CONSOLE_OWNER_HEADER });
  const ownerId = asked ?? owners[0];
  if (ownerId === undefined || !owners.includes(ownerId)) {
    throw new GatewayError("owner_not_viewable", `You may not view the owner ${JSON.stringify(ownerId ?? "")}; you may view ${owners.join(", ") || "no owner"}.`, {
      param: CONSOLE_OWNER_HEADER,
    });
  }
  return ownerId;
}

/** What a person may do: read. No scope that changes anything is ever theirs. */
const PERSON_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope.endsWith(":read"));

/** The provisioning key whose secret hashes to `hash`, unless it is unknown or revoked (401 with `message`). */
export async function validProvisioningKey(ctx: GatewayContext, hash: Buffer, message: string): Promise<StoredProvisioningKey> {
  const key = await ctx.store.findProvisioningKeyByHash(hash);
  if (!key || !hashesEqual(key.secretHash, hash) || key.revokedAt !== null) throw new GatewayError("invalid_credentials", message);
  return key;
}

/**
 * Looks up a regular key and refuses it unless it may call models now; extension `secret_use`:
 * tells the tracker which of its secrets the request presented, and from which client.
 */
function authenticateApiKey(ctx: GatewayContext, request: FastifyRequest, secret: string): Promise<StoredApiKey> {
  return ctx.tracing.inSpan("gateway.authenticate", traceContextOf(request), async (span) => {
    const { key, match } = await checkApiKey(ctx, secret);
    ctx.secretUse.seen(key, match, request.headers["user-agent"], request.ip, ctx.now());
    if (span.isRecording()) {
      const who = { [GATEWAY_ATTRIBUTES.keyId]: key.id, [GATEWAY_ATTRIBUTES.ownerId]: key.ownerId };
      span.setAttributes({ ...who, [GATEWAY_ATTRIBUTES.secret]: match });
      request.trace?.span.setAttributes(who);
    }
    return key;
  });
}

/** The key `secret` belongs to and which of its secrets it is, or the refusal the contract names. */
async function checkApiKey(ctx: GatewayContext, secret: string): Promise<{ key: StoredApiKey; match: Exclude<SecretMatch, "none"> }> {
  const kind = keyKindOf(secret);
  if (kind === undefined) throw new GatewayError("invalid_credentials", MALFORMED);
  if (kind === "provisioning") throw new GatewayError("wrong_key_kind", WRONG_KIND_ON_MODELS);
  const hash = sha256(secret);
  const key = await ctx.keys.find(hash);
  // A rotated-away secret matches no stored hash, or a previous one whose grace is over (extension
  // rotation_grace) or that was retired (extension secret_use): either way it lands here as unknown.
  const match = key ? matchSecret(key, hash, ctx.now()) : "none";
  if (!key || match === "none") {
    throw new GatewayError("invalid_credentials", "The API key is not valid; it may have been rotated or never existed.");
  }
  if (key.state === "revoked") throw new GatewayError("invalid_credentials", "The API key has been revoked.");
  if (isExpired(key, ctx.now())) {
    throw new GatewayError(
      "key_expired",
      `The API key expired at ${new Date(key.expiresAt!).toISOString()}; its owner can extend it with PATCH expiresAt.`,
    );
  }
  if (key.state === "disabled") {
    throw new GatewayError("key_disabled", "The API key is disabled; its owner can enable it again with PATCH state \"active\".");
  }
  return { key, match };
}

/** Model endpoints: a regular key is required. Sets `request.apiKey`. */
export function requireApiKey(ctx: GatewayContext): onRequestAsyncHookHandler {
  return async (request) => {
    const secret = modelCredential(request.headers);
    if (secret === undefined) {
      throw new GatewayError("invalid_credentials", "Send a regular API key as Authorization: Bearer <key> (or x-api-key).");
    }
    const key = await authenticateApiKey(ctx, request, secret);
    ctx.credentialThrottle.take(`key:${key.id}`, ctx.now());
    request.apiKey = key;
  };
}

/** `GET /v1/models`: no key is fine; a key that is sent must be valid. */
export function optionalApiKey(ctx: GatewayContext): onRequestAsyncHookHandler {
  return async (request) => {
    const secret = modelCredential(request.headers);
    if (secret === undefined) {
      ctx.credentialThrottle.take(anonymous(request), ctx.now());
      return;
    }
    const key = await authenticateApiKey(ctx, request, secret);
    ctx.credentialThrottle.take(`key:${key.id}`, ctx.now());
    request.apiKey = key;
  };
}

/** Anonymous callers share a bucket per client address. */
export function anonymous(request: FastifyRequest): string {
  return `ip:${request.ip}`;
}
