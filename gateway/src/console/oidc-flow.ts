import type * as OpenIdClient from "openid-client" with { "resolution-mode": "import" };
import type { ConsolePerson, ViewableOwner } from "../context";
import type { ReplyCipher } from "../crypto";
import { isLoopbackUrl, viewableOwners, type OidcSettings } from "./oidc-config";

/** How long a browser has between leaving for the provider and coming back: long enough to type a password and a second factor. */
export const LOGIN_LIFETIME_MS = 10 * 60 * 1000;
/** Binds a sealed login to its purpose: neither a session nor a sealed reply can pass for one. */
const SEALED_FOR = "console-oidc-login";

/**
 * What the gateway must remember between sending the browser to the provider and its return: the
 * state and nonce it will check and the PKCE verifier only it knows. Kept in a sealed cookie
 * (AES-256-GCM, the reply key), so any process of the gateway can finish a login another began.
 */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  expiresAt: number;
}

export function sealLogin(cipher: ReplyCipher, login: PendingLogin): string {
  return cipher.seal(JSON.stringify(login), SEALED_FOR).toString("base64url");
}

/** The pending login of a cookie value, or `undefined` when it is not one of ours, was altered, or is over at `now`. */
export function openLogin(cipher: ReplyCipher, value: string, now: number): PendingLogin | undefined {
  const plain = cipher.open(Buffer.from(value, "base64url"), SEALED_FOR);
  if (plain === undefined) return undefined;
  const login = JSON.parse(plain) as PendingLogin;
  return now < login.expiresAt ? login : undefined;
}

/** Who came back from the provider, and the owners (whole, or some of their teams) the access rules give them. */
export interface SignedInPerson {
  person: ConsolePerson;
  owners: ViewableOwner[];
}

/** A refusal of a login, with a message fit for the person's browser (it never holds a token or secret). */
export class LoginRefused extends Error {
  override readonly name = "LoginRefused";
}

/**
 * The console's OpenID Connect relying party: authorization code flow with PKCE (S256), state and
 * nonce, through `openid-client` — which checks the ID token's signature, issuer, audience, expiry
 * and nonce, and the authorization response's `iss` where the provider sends one (RFC 9207).
 *
 * The provider's metadata is discovered at the first sign-in, not at start, so the gateway serves
 * (and the key sign-in works) while the provider is down; a failed discovery is tried again at the
 * next sign-in.
 */
export class OidcRelyingParty {
  private configuration: Promise<OpenIdClient.Configuration> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  /** Where to send the browser, and what to remember until it comes back. */
  async start(now: number): Promise<{ url: URL; login: PendingLogin }> {
    const [client, configuration] = await Promise.all([library(), this.discovered()]);
    const codeVerifier = client.randomPKCECodeVerifier();
    const login: PendingLogin = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier, expiresAt: now + LOGIN_LIFETIME_MS };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUrl,
      scope: this.settings.scopes.join(" "),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state: login.state,
      nonce: login.nonce,
    });
    return { url, login };
  }

  /**
   * Finishes a login from the provider's redirect (`query`: the callback's query string): checks the
   * state, redeems the code with the verifier, checks the ID token and its nonce, then maps the
   * person's claims — the ID token's, completed by userinfo's when the provider offers it — to owners and teams.
   * @throws LoginRefused when any check fails or the provider refused.
   */
  async finish(query: string, login: PendingLogin): Promise<SignedInPerson> {
    const [client, configuration] = await Promise.all([library(), this.discovered()]);
    const callback = new URL(this.settings.redirectUrl);
    callback.search = query;
    let tokens: OpenIdClient.TokenEndpointResponse & OpenIdClient.TokenEndpointResponseHelpers;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new LoginRefused(`The identity provider's answer was refused: ${describe(error)}`);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new LoginRefused("The identity provider sent no ID token.");
    let claims: Record<string, unknown> = { ...idClaims };
    if (configuration.serverMetadata().userinfo_endpoint && tokens.access_token) {
      try {
        const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
        // The ID token's claims win: they are signed; userinfo only adds what the token left out.
        claims = { ...userinfo, ...idClaims };
      } catch (error) {
        throw new LoginRefused(`The identity provider's userinfo was refused: ${describe(error)}`);
      }
    }
    const email = typeof claims.email === "string" ? claims.email : null;
    return { person: { subject: idClaims.sub, email }, owners: viewableOwners(this.settings.access, claims) };
  }

  private discovered(): Promise<OpenIdClient.Configuration> {
    this.configuration ??= library()
      .then((client) =>
        client.discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, {
          // Plain http only for a provider on this machine (a test's, a developer's); anywhere else it must be https.
          ...(isLoopbackUrl(this.settings.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
        }),
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new LoginRefused(`The identity provider at ${this.settings.issuer} could not be reached or described itself wrongly: ${describe(error)}`);
      });
    return this.configuration;
  }
}

/**
 * openid-client is an ES module; the gateway is CommonJS. It is loaded only when OpenID Connect is
 * configured (Node's require of an ES module would do as well; `import()` keeps the type checker's
 * module rules honest).
 */
function library(): Promise<typeof OpenIdClient> {
  return import("openid-client");
}

/**
 * An error's message and code, and its cause's (openid-client wraps the check that failed, e.g.
 * `unexpected "state" response parameter value`); never a response body (it may hold a token).
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  const code = (error as { code?: unknown }).code;
  const providerError = (error as { error?: unknown }).error;
  const own = [typeof providerError === "string" ? providerError : undefined, error.message, typeof code === "string" ? `(${code})` : undefined].filter(Boolean).join(" ");
  return error.cause instanceof Error ? `${own}: ${describe(error.cause)}` : own;
}
