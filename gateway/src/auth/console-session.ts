import { parse as parseCookies, serialize as serializeCookie } from "cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ConsolePerson, GatewayContext, ViewableOwner } from "../context";
import type { ReplyCipher } from "../crypto";

/** The console's session cookie. */
export const SESSION_COOKIE = "gateway_console";
/** How long a console session lasts: short, since it stands for a provisioning key. */
export const SESSION_LIFETIME_MS = 30 * 60 * 1000;
/** Binds a sealed session to its purpose: a sealed reply can never pass for one, nor the reverse. */
const SEALED_FOR = "console-session";

/**
 * What a session stands for: a provisioning key (by its secret's hash) that signed in, or a person
 * an OpenID provider signed in (subject and email) with what they may view, read-only — owners
 * whole or some of their teams, computed once at sign-in from the access rules; and when it ends.
 */
export type ConsoleSession =
  | { kind: "key"; provisioningKeyHash: Buffer; expiresAt: number }
  | { kind: "person"; person: ConsolePerson; owners: readonly ViewableOwner[]; expiresAt: number };

/**
 * A person's viewable owners in order (`o`) and, for those they may view only some teams of, the
 * teams (`t`, by owner): a session sealed before teams could be viewed has no `t` and reads as it did.
 */
type SealedSession = { h: string; e: number } | { s: string; m: string | null; o: string[]; t?: Record<string, string[]>; e: number };

/**
 * A session as its cookie holds it: sealed with the gateway's reply key (AES-256-GCM), so it needs
 * no server state — every process sharing a database opens it — and holds nothing a reader of the
 * cookie could use: the provisioning key itself is never in it, only its hash, encrypted; a
 * person's session holds no token of the provider's, only who they are and what they may view.
 */
export function sealSession(cipher: ReplyCipher, session: ConsoleSession): string {
  const sealed: SealedSession =
    session.kind === "key"
      ? { h: session.provisioningKeyHash.toString("base64"), e: session.expiresAt }
      : {
          s: session.person.subject,
          m: session.person.email,
          o: session.owners.map((owner) => owner.ownerId),
          t: Object.fromEntries(session.owners.flatMap(({ ownerId, teamIds }) => (teamIds === null ? [] : [[ownerId, [...teamIds]]]))),
          e: session.expiresAt,
        };
  return cipher.seal(JSON.stringify(sealed), SEALED_FOR).toString("base64url");
}

/** The session of a cookie value, or `undefined` when it is not one of ours, was altered, or has ended at `now`. */
export function openSession(cipher: ReplyCipher, value: string, now: number): ConsoleSession | undefined {
  const plain = cipher.open(Buffer.from(value, "base64url"), SEALED_FOR);
  if (plain === undefined) return undefined;
  const sealed = JSON.parse(plain) as SealedSession;
  if (!(now < sealed.e)) return undefined;
  if ("h" in sealed) return { kind: "key", provisioningKeyHash: Buffer.from(sealed.h, "base64"), expiresAt: sealed.e };
  // Own properties only: an owner named like an Object member ("constructor") is no team list.
  const teamsOf = (ownerId: string) => (sealed.t && Object.hasOwn(sealed.t, ownerId) ? sealed.t[ownerId]! : null);
  const owners = sealed.o.map((ownerId) => ({ ownerId, teamIds: teamsOf(ownerId) }));
  return { kind: "person", person: { subject: sealed.s, email: sealed.m }, owners, expiresAt: sealed.e };
}

/** The live session of a request's cookie, if it carries one. */
export function consoleSessionOf(ctx: GatewayContext, request: FastifyRequest): ConsoleSession | undefined {
  const header = request.headers.cookie;
  const value = header === undefined ? undefined : parseCookies(header)[SESSION_COOKIE];
  return value ? openSession(ctx.cipher, value, ctx.now()) : undefined;
}

/**
 * Sets (or, with `undefined`, clears) the session cookie: `HttpOnly` (no script reads it),
 * `SameSite=Strict` (no other site's page sends it), `Secure` when the request came over TLS — to
 * the gateway, or to the proxy in front of it, which says so with `X-Forwarded-Proto: https` (a
 * client that sends that header only makes its own cookie stricter) — on the whole origin (the
 * console's pages and the account API it reads).
 */
export function writeSessionCookie(reply: FastifyReply, request: FastifyRequest, sealed: string | undefined, maxAgeMs = SESSION_LIFETIME_MS): void {
  reply.header(
    "set-cookie",
    serializeCookie(SESSION_COOKIE, sealed ?? "", {
      httpOnly: true,
      sameSite: "strict",
      secure: request.protocol === "https" || request.headers["x-forwarded-proto"] === "https",
      path: "/",
      maxAge: sealed === undefined ? 0 : Math.floor(maxAgeMs / 1000),
    }),
  );
}
