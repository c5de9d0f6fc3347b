import { readFileSync } from "node:fs";
import { GoogleAuth, JWT } from "google-auth-library";
import { libraryTokenSource, type TokenSource } from "./common";

/** Tokens for Vertex AI: the scope every Google Cloud API accepts. */
const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** Where google-auth-library asks for a service account's tokens (it does not read the key file's `token_uri`). */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

interface ServiceAccountKey {
  type: "service_account";
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** A key file's JSON, checked enough to say what is wrong with it by name (never by value). */
function readServiceAccount(path: string, provider: string): ServiceAccountKey | { type: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`provider ${provider}: cannot read the Google credentials file ${path}: ${error instanceof SyntaxError ? "it is not JSON" : (error as Error).message}`);
  }
  const key = parsed as Partial<ServiceAccountKey> & { type?: unknown };
  if (typeof key.type !== "string") throw new Error(`provider ${provider}: the Google credentials file ${path} has no "type"`);
  if (key.type !== "service_account") return { type: key.type };
  for (const field of ["client_email", "private_key"] as const) {
    if (typeof key[field] !== "string") throw new Error(`provider ${provider}: the service account key file ${path} has no "${field}"`);
  }
  return key as ServiceAccountKey;
}

/**
 * A service account's access tokens through google-auth-library's JWT client, which signs the
 * assertion with the key, caches the token and refreshes it five minutes before it expires. The
 * key file's `token_uri` is honoured (as Google's Python and Go libraries do): for Google's own
 * key files it is Google's token endpoint; a test points it at a token server of its own.
 */
function serviceAccountClient(key: ServiceAccountKey): JWT {
  const tokenUri = key.token_uri ?? GOOGLE_TOKEN_URL;
  return new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [CLOUD_PLATFORM_SCOPE],
    transporterOptions: {
      // Node's own fetch, rather than the node-fetch gaxios would import (an ES module some hosts, jest among them, cannot load).
      fetchImplementation: fetch,
      adapter: (options, send) => send(String(options.url) === GOOGLE_TOKEN_URL && tokenUri !== GOOGLE_TOKEN_URL ? { ...options, url: new URL(tokenUri) } : options),
    },
  });
}

/**
 * The access tokens of a Vertex provider: from `credentialsFile`, else the file
 * GOOGLE_APPLICATION_CREDENTIALS names, else Application Default Credentials (a workload's
 * attached service account on Google Cloud, a developer's `gcloud auth application-default`
 * login). A key file is read at start, so a missing or malformed one stops the gateway naming it.
 */
export function googleTokenSource(credentialsFile: string | undefined, env: NodeJS.ProcessEnv, provider: string): TokenSource {
  const file = credentialsFile ?? env.GOOGLE_APPLICATION_CREDENTIALS;
  const key = file === undefined ? undefined : readServiceAccount(file, provider);
  // A fresh client holds no token: forgetting a refused one is opening another.
  const open = (): (() => Promise<string | null | undefined>) => {
    if (key?.type === "service_account") {
      const client = serviceAccountClient(key as ServiceAccountKey);
      return async () => (await client.getAccessToken()).token;
    }
    // Another kind of credentials file (a user's login, workload identity federation), or none: the library's own search.
    const auth = new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE], clientOptions: { transporterOptions: { fetchImplementation: fetch } }, ...(file !== undefined && { keyFilename: file }) });
    return () => auth.getAccessToken();
  };
  return libraryTokenSource(provider, open, "the token endpoint answered without an access token");
}
