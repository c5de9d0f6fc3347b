import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { z } from "zod";
import { keyKindOf, type Scope } from "@gateway-keys/contract";
import { anonymous, validProvisioningKey } from "../auth/hooks";
import type { GatewayContext } from "../context";
import { sha256 } from "../crypto";
import { GatewayError } from "../errors";
import { recordChange } from "../audit/record";
import { consoleSessionOf, sealSession, SESSION_LIFETIME_MS, writeSessionCookie } from "../auth/console-session";
import type { OidcSettings } from "./oidc-config";
import { oidcRoutes } from "./oidc-routes";

/** How the console signs people in: a provisioning key (unless turned off), OpenID Connect (when configured). */
export interface ConsoleSignIn {
  /** Whether a provisioning key may sign in. Default true; turned off with `--no-console-key-sign-in`. */
  provisioningKey?: boolean;
  /** Sign-in through an OpenID provider (docs/console.md#sign-in-with-openid-connect). */
  oidc?: OidcSettings;
}

/** What the console reads: the keys and their usage. A provisioning key without both cannot sign in. */
const CONSOLE_SCOPES: readonly Scope[] = ["keys:read", "usage:read"];

/**
 * The console's pages may load only what the gateway serves them, run no inline script and be framed
 * by no one: the strictest policy the pages work under (uPlot and Preact set styles through the
 * DOM, which `style-src 'self'` allows).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
} as const;

const SignIn = z.strictObject({ provisioningKey: z.string({ error: "expected the provisioning key (gwp_…) as a string" }).min(1).max(200) });

/** Where the built console is: `console/dist` of the @gateway-keys/console workspace. */
function consoleFiles(): string {
  const dist = join(dirname(require.resolve("@gateway-keys/console/package.json")), "dist");
  if (!existsSync(join(dist, "index.html"))) throw new Error(`the console is not built (${dist} has no index.html): run npm run build`);
  return dist;
}

/**
 * `/console`: the read-only web console (docs/console.md). Its pages are static files built at
 * build time (console/); they read the account API with a session cookie that this plugin sets
 * once a provisioning key with read scopes signs in, or a person through OpenID Connect
 * (oidc-routes.ts). Nothing here changes a key.
 */
export const consoleRoutes: FastifyPluginAsync<{ ctx: GatewayContext; signIn: ConsoleSignIn }> = async (app, { ctx, signIn }) => {
  const dist = consoleFiles();
  const page = readFileSync(join(dist, "index.html"));
  const secured = (reply: FastifyReply) => reply.headers(SECURITY_HEADERS);

  app.addHook("onSend", async (request, reply) => {
    if (request.url.startsWith("/console")) secured(reply);
  });

  // The build writes .br and .gz beside each asset: served to browsers that accept them.
  await app.register(fastifyStatic, { root: join(dist, "assets"), prefix: "/console/assets/", decorateReply: false, index: false, schemaHide: true, preCompressed: true });

  app.get("/console", { schema: { hide: true } }, async (_request, reply) =>
    reply.header("cache-control", "no-store").type("text/html; charset=utf-8").send(page),
  );

  if (signIn.oidc) await app.register(oidcRoutes, { ctx, oidc: signIn.oidc });

  // What the sign-in page offers: never more than the gateway accepts.
  app.get("/console/sign-in-methods", { schema: { hide: true } }, async (_request, reply) =>
    reply.header("cache-control", "no-store").send({ provisioningKey: ctx.consoleKeySignIn, oidc: signIn.oidc !== undefined }),
  );

  app.post("/console/session", { schema: { hide: true } }, async (request, reply) => {
    ctx.credentialThrottle.take(anonymous(request), ctx.now());
    if (!ctx.consoleKeySignIn) throw new GatewayError("key_sign_in_disabled", "This console signs people in through their identity provider only; a provisioning key cannot sign in here.");
    const parsed = SignIn.safeParse(request.body);
    if (!parsed.success) throw new GatewayError("validation_failed", "Invalid fields: provisioningKey: expected the provisioning key (gwp_…).", { param: "provisioningKey" });
    const secret = parsed.data.provisioningKey.trim();
    if (keyKindOf(secret) !== "provisioning") {
      throw new GatewayError("invalid_credentials", "Sign in with a provisioning key (gwp_…) that carries keys:read and usage:read.");
    }
    const hash = sha256(secret);
    const key = await validProvisioningKey(ctx, hash, "The provisioning key is not valid; it may have been revoked or never existed.");
    const missing = CONSOLE_SCOPES.filter((scope) => !key.scopes.includes(scope));
    if (missing.length > 0) throw new GatewayError("missing_scope", `The console needs a provisioning key with ${missing.join(" and ")}.`);
    const now = ctx.now();
    const expiresAt = now + SESSION_LIFETIME_MS;
    // A sign-in is an account event: recorded (and announced as audit.console_sign_in) before the session is handed out.
    await ctx.store.transaction((tx) =>
      recordChange(
        tx,
        { ownerId: key.ownerId, action: "console_sign_in", keyId: null, webhookId: null, versionBefore: null, versionAfter: null, changes: {}, time: now },
        { actor: { kind: "console", id: key.id, hint: key.hint }, idempotencyKey: null, requestId: request.id },
        null,
      ),
    );
    writeSessionCookie(reply, request, sealSession(ctx.cipher, { kind: "key", provisioningKeyHash: hash, expiresAt }));
    return reply
      .header("cache-control", "no-store")
      .send({ kind: "key", ownerId: key.ownerId, owners: [key.ownerId], teams: {}, hint: key.hint, expiresAt: new Date(expiresAt).toISOString() });
  });

  app.get("/console/session", { schema: { hide: true } }, async (request, reply) => {
    const session = consoleSessionOf(ctx, request);
    const expiresAt = session && new Date(session.expiresAt).toISOString();
    reply.header("cache-control", "no-store");
    if (session?.kind === "person" && ctx.consoleOidcSignIn) {
      const { subject, email } = session.person;
      // `teams`: the owners the person may view only some teams of, and those teams.
      const teams = Object.fromEntries(session.owners.flatMap(({ ownerId, teamIds }) => (teamIds === null ? [] : [[ownerId, teamIds]])));
      const owners = session.owners.map((owner) => owner.ownerId);
      return reply.send({ kind: "person", subject, email, ownerId: owners[0], owners, teams, hint: null, expiresAt });
    }
    if (session?.kind !== "key" || !ctx.consoleKeySignIn) throw new GatewayError("invalid_credentials", "No console session; sign in.");
    const key = await validProvisioningKey(ctx, session.provisioningKeyHash, "The console session's provisioning key is no longer valid; sign in again.");
    return reply.send({ kind: "key", ownerId: key.ownerId, owners: [key.ownerId], teams: {}, hint: key.hint, expiresAt });
  });

  app.delete("/console/session", { schema: { hide: true } }, async (request, reply) => {
    writeSessionCookie(reply, request, undefined);
    return reply.code(204).send();
  });
};
