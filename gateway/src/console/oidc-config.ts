import { readFileSync } from "node:fs";
import { z } from "zod";
import { describeIssues, fieldIssues, TeamId } from "@gateway-keys/contract";
import { parse as parseYaml } from "yaml";
import type { ViewableOwner } from "../context";

/** The variable that holds the client secret when the file names no `clientSecretFile`. */
export const OIDC_CLIENT_SECRET_ENV = "GATEWAY_CONSOLE_OIDC_CLIENT_SECRET";

const OwnerName = z.string().min(1).max(200);

/**
 * A team an access rule names: by its owner and id (`team_…`), never by its name — a name may be
 * changed, and two teams of an owner may share one, so a rename would move who sees what.
 */
export const OidcTeamGrant = z.strictObject({ owner: OwnerName, teamId: TeamId });

/**
 * One access rule: a person whose ID token (or userinfo) claim `claim` holds `value` — equals it,
 * or, for a list claim such as `groups`, contains it — may view `owners` whole, and `teams` (each
 * team of its owner, and the keys in it, nothing else of that owner). Read-only either way.
 */
export const OidcAccessRule = z
  .strictObject({
    claim: z.string().min(1).max(200),
    value: z.string().min(1).max(500),
    owners: z.array(OwnerName).optional(),
    teams: z.array(OidcTeamGrant).optional(),
  })
  .refine((rule) => (rule.owners?.length ?? 0) + (rule.teams?.length ?? 0) > 0, { error: "must name at least one owner, or a team in teams", path: ["owners"] });
export type OidcAccessRule = z.infer<typeof OidcAccessRule>;

/** Whether a URL names this machine: the one place plain http can carry a provider's answers safely. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}

const HttpUrl = z.url({ protocol: /^https?$/, error: "expected an http(s) URL" });

/**
 * The console's OpenID Connect sign-in (`gateway serve --console-oidc FILE`, YAML or JSON;
 * docs/deployment.md#console-sign-in-with-openid-connect). The client secret is never in the file:
 * the file names a file holding it, else it comes from {@link OIDC_CLIENT_SECRET_ENV}.
 */
export const OidcConfigFile = z.strictObject({
  /**
   * The provider's issuer identifier: its discovery document is `<issuer>/.well-known/openid-configuration`.
   * `https`, but for a provider on the loopback address (a developer's, a test's).
   */
  issuer: HttpUrl.refine((url) => url.startsWith("https:") || isLoopbackUrl(url), { error: "expected an https URL (plain http only on 127.0.0.1, ::1 or localhost)" }),
  clientId: z.string().min(1).max(500),
  /** A file holding the client secret (a mounted secret); without it, the variable. */
  clientSecretFile: z.string().min(1).optional(),
  /** Where the provider sends the browser back: `<gateway>/console/oidc/callback`, registered at the provider as is. */
  redirectUrl: HttpUrl.refine((url) => new URL(url).pathname === "/console/oidc/callback", { error: "expected the gateway's /console/oidc/callback URL" }),
  /** The scopes asked for; `openid` is always among them. */
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, { error: "expected a scope name" })).default(["openid", "email", "profile"]),
  access: z.array(OidcAccessRule).min(1, { error: "must hold at least one rule: nobody could see anything" }),
});

/** The OpenID Connect settings the gateway runs with: the file's, with the client secret read. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Never logged, never sent anywhere but the provider's token endpoint. */
  clientSecret: string;
  redirectUrl: string;
  scopes: readonly string[];
  access: readonly OidcAccessRule[];
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Reads and checks the OIDC file and the client secret; the error names the file and every offending path. */
export function loadOidcSettings(path: string, env: NodeJS.ProcessEnv = process.env): OidcSettings {
  const text = readText(path, "the console OIDC file");
  let raw: unknown;
  try {
    raw = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`the console OIDC file ${path} is not ${/\.json$/i.test(path) ? "JSON" : "YAML"}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = OidcConfigFile.safeParse(raw);
  if (!parsed.success) throw new Error(`the console OIDC file ${path} is not valid: ${describeIssues(fieldIssues(parsed.error))}`);
  const { clientSecretFile, ...settings } = parsed.data;
  const clientSecret = (clientSecretFile === undefined ? env[OIDC_CLIENT_SECRET_ENV] : readText(clientSecretFile, "the client secret file"))?.trim();
  if (!clientSecret) {
    throw new Error(`the console OIDC client secret is missing: name a file in clientSecretFile (${path}) or set ${OIDC_CLIENT_SECRET_ENV}`);
  }
  const scopes = settings.scopes.includes("openid") ? settings.scopes : ["openid", ...settings.scopes];
  return { ...settings, scopes, clientSecret };
}

/**
 * What a person may view: each owner of every rule whose claim matches, whole or only the teams
 * the matching rules name (an owner a rule gives whole is whole, whatever the others give). A claim
 * is matched as a string or as a list of strings; any other shape matches nothing.
 */
export function viewableOwners(access: readonly OidcAccessRule[], claims: Record<string, unknown>): ViewableOwner[] {
  // null: the whole owner. A Map keeps the rules' order: the console opens on the first owner.
  const views = new Map<string, Set<string> | null>();
  for (const rule of access) {
    const held = claims[rule.claim];
    const matches = Array.isArray(held) ? held.includes(rule.value) : held === rule.value;
    if (!matches) continue;
    for (const owner of rule.owners ?? []) views.set(owner, null);
    for (const { owner, teamId } of rule.teams ?? []) {
      const teams = views.get(owner);
      if (teams !== null) views.set(owner, (teams ?? new Set<string>()).add(teamId));
    }
  }
  return [...views].map(([ownerId, teams]) => ({ ownerId, teamIds: teams && [...teams] }));
}
