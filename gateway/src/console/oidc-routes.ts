import { parse as parseCookies, serialize as serializeCookie } from "cookie";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { anonymous } from "../auth/hooks";
import { sealSession, SESSION_LIFETIME_MS, writeSessionCookie } from "../auth/console-session";
import type { GatewayContext } from "../context";
import { recordChange } from "../audit/record";
import type { OidcSettings } from "./oidc-config";
import { LOGIN_LIFETIME_MS, LoginRefused, OidcRelyingParty, openLogin, sealLogin, type SignedInPerson } from "./oidc-flow";

/** The cookie that carries a pending login (state, nonce, PKCE verifier) from `/login` to `/callback`. */
const LOGIN_COOKIE = "gateway_console_login";
const LOGIN_PATH = "/console/oidc";

/**
 * Sets (or clears) the pending login's cookie: `HttpOnly`, on `/console/oidc` only, and
 * `SameSite=Lax` — the provider sends the browser back with a top-level GET from its own site, which
 * a `Strict` cookie would not survive. It holds nothing but what the callback checks, sealed.
 */
function writeLoginCookie(reply: FastifyReply, request: FastifyRequest, sealed: string | undefined): void {
  reply.header(
    "set-cookie",
    serializeCookie(LOGIN_COOKIE, sealed ?? "", {
      httpOnly: true,
      sameSite: "lax",
      secure: request.protocol === "https" || request.headers["x-forwarded-proto"] === "https",
      path: LOGIN_PATH,
      maxAge: sealed === undefined ? 0 : Math.floor(LOGIN_LIFETIME_MS / 1000),
    }),
  );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page that tells the person why they are not signed in (no script, no style: the console's CSP holds). */
function refusalPage(reply: FastifyReply, status: number, message: string): FastifyReply {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · Gateway console</title></head>
<body><main><h1>Sign-in refused</h1><p role="alert">${escapeHtml(message)}</p><p><a href="/console">Back to the console</a></p></main></body></html>
`;
  return reply.code(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(body);
}

/**
 * `/console/oidc/*`: the console's sign-in through OpenID Connect (docs/console.md#sign-in-with-openid-connect).
 * `login` sends the browser to the provider; `callback` checks what comes back, records the
 * sign-in in the audit trail of every owner the person may view (whole or some of its teams), and
 * hands out a console session that reads those and nothing else.
 */
export const oidcRoutes: FastifyPluginAsync<{ ctx: GatewayContext; oidc: OidcSettings }> = async (app, { ctx, oidc }) => {
  const relyingParty = new OidcRelyingParty(oidc);

  app.get(`${LOGIN_PATH}/login`, { schema: { hide: true } }, async (request, reply) => {
    ctx.credentialThrottle.take(anonymous(request), ctx.now());
    let started: Awaited<ReturnType<OidcRelyingParty["start"]>>;
    try {
      started = await relyingParty.start(ctx.now());
    } catch (error) {
      if (error instanceof LoginRefused) return refusalPage(reply, 502, error.message);
      throw error;
    }
    writeLoginCookie(reply, request, sealLogin(ctx.cipher, started.login));
    return reply.header("cache-control", "no-store").redirect(started.url.href, 303);
  });

  app.get(`${LOGIN_PATH}/callback`, { schema: { hide: true } }, async (request, reply) => {
    ctx.credentialThrottle.take(anonymous(request), ctx.now());
    const sealed = request.headers.cookie === undefined ? undefined : parseCookies(request.headers.cookie)[LOGIN_COOKIE];
    const login = sealed ? openLogin(ctx.cipher, sealed, ctx.now()) : undefined;
    // Whatever happens next, this login is spent: a callback is never replayed against it.
    writeLoginCookie(reply, request, undefined);
    if (!login) return refusalPage(reply, 400, "This sign-in was not started here, or took longer than ten minutes. Start again from the console.");
    const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
    let signedIn: SignedInPerson;
    try {
      signedIn = await relyingParty.finish(query, login);
    } catch (error) {
      if (error instanceof LoginRefused) return refusalPage(reply, 400, error.message);
      throw error;
    }
    const { person, owners } = signedIn;
    const who = person.email ?? person.subject;
    if (owners.length === 0) {
      request.log.info({ subject: person.subject }, "console sign-in refused: no access rule gives this person an owner or a team");
      return refusalPage(reply, 403, `You are signed in at the identity provider as ${who}, but no access rule of this gateway gives you an owner or a team to view. Ask its operator to map one of your groups.`);
    }
    const now = ctx.now();
    // A sign-in is an account event of every owner the person may now view: recorded (and
    // announced as audit.console_sign_in) before the session is handed out. It names the person,
    // never a token.
    await ctx.store.transaction(async (tx) => {
      for (const { ownerId } of owners) {
        await recordChange(
          tx,
          { ownerId, action: "console_sign_in", keyId: null, webhookId: null, versionBefore: null, versionAfter: null, changes: {}, time: now },
          { actor: { kind: "person", id: person.subject, hint: person.email }, idempotencyKey: null, requestId: request.id },
          null,
        );
      }
    });
    writeSessionCookie(reply, request, sealSession(ctx.cipher, { kind: "person", person, owners, expiresAt: now + SESSION_LIFETIME_MS }));
    return reply.header("cache-control", "no-store").redirect("/console", 303);
  });
};
