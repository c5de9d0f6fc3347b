/**
 * A scripted Google Cloud for Vertex AI tests: an OAuth token endpoint that checks a service
 * account's JWT assertion as Google's does (RS256 signature verified with the account's public
 * key, issuer, audience, scope, expiry) and issues access tokens that live as long as the test
 * says; and a gate for a scripted provider (scripted-provider.ts) that refuses, as Vertex does, a
 * token it did not issue or that has expired, a path that is not a Vertex method, and a Claude
 * body without `anthropic_version: "vertex-2023-10-16"` or with a `model`.
 *
 *   const google = await startScriptedGoogle(dir);
 *   const account = google.serviceAccount("gateway", { lifetimeSeconds: 3600 });   // account.keyFile
 *   const vertex = await startScriptedProvider({ gate: google.vertexGate("my-project", "us-east5") });
 *
 * Only erasable TypeScript, like scripted-provider.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ReceivedRequest, Script } from "./scripted-provider.ts";

/** The audience Google's token endpoint requires in an assertion (google-auth-library signs it so). */
export const GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token";
const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** One access token the endpoint issued. */
export interface IssuedToken {
  token: string;
  email: string;
  expiresAt: number;
}

export interface ServiceAccount {
  email: string;
  /** The key file, written as Google writes one, with `token_uri` pointing at this endpoint. */
  keyFile: string;
}

export interface ScriptedGoogle {
  tokenUri: string;
  /** Every token issued, in order. */
  issued: IssuedToken[];
  /** Assertions refused (bad signature, unknown account, wrong audience, …), with the reason. */
  refusedAssertions: string[];
  /** A service account the endpoint knows; its tokens live `lifetimeSeconds`. */
  serviceAccount(name: string, options: { lifetimeSeconds: number }): ServiceAccount;
  /** A key file in the name of account `name` signed with a key the endpoint does not know (a revoked or forged key). */
  foreignServiceAccount(name: string): ServiceAccount;
  /** Whether a bearer token was issued here and has not expired. */
  valid(token: string): boolean;
  /** Revokes a token before it expires: Vertex refuses it from then on (401), as it does a revoked grant. */
  revoke(token: string): void;
  /** Vertex AI's checks, as a scripted provider's gate, for one project and location. */
  vertexGate(project: string, location: string): (request: ReceivedRequest) => Script | undefined;
  close(): Promise<void>;
}

interface KnownAccount {
  publicKey: KeyObject;
  lifetimeSeconds: number;
}

const decodePart = (part: string): Record<string, unknown> => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;

/** Why Google would refuse an assertion, or the account it authenticates. */
function assertionProblem(assertion: string, accounts: Map<string, KnownAccount>): { problem: string } | { email: string } {
  const parts = assertion.split(".");
  if (parts.length !== 3) return { problem: "not a JWT" };
  const [header, payload, signature] = parts as [string, string, string];
  const claims = decodePart(payload);
  if (decodePart(header).alg !== "RS256") return { problem: "alg is not RS256" };
  const email = String(claims.iss);
  const account = accounts.get(email);
  if (!account) return { problem: `unknown account ${email}` };
  if (!verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), account.publicKey, Buffer.from(signature, "base64url"))) return { problem: "Invalid JWT Signature." };
  if (claims.aud !== GOOGLE_TOKEN_AUDIENCE) return { problem: `aud is ${String(claims.aud)}` };
  if (!String(claims.scope ?? "").split(" ").includes(CLOUD_PLATFORM_SCOPE)) return { problem: `scope is ${String(claims.scope)}` };
  const now = Date.now() / 1000;
  if (typeof claims.exp !== "number" || claims.exp < now) return { problem: "the assertion has expired" };
  if (typeof claims.iat !== "number" || claims.iat > now + 60) return { problem: "iat is in the future" };
  return { email };
}

function newKeyPair() {
  return generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
}

/** Starts the token endpoint on 127.0.0.1; key files are written into `dir`. */
export async function startScriptedGoogle(dir: string): Promise<ScriptedGoogle> {
  const accounts = new Map<string, KnownAccount>();
  const issued: IssuedToken[] = [];
  const refusedAssertions: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const answer = (status: number, body: object) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return answer(400, { error: "unsupported_grant_type" });
      const checked = assertionProblem(form.get("assertion") ?? "", accounts);
      if ("problem" in checked) {
        refusedAssertions.push(checked.problem);
        return answer(400, { error: "invalid_grant", error_description: checked.problem });
      }
      const lifetimeSeconds = accounts.get(checked.email)!.lifetimeSeconds;
      const token = `ya29.scripted-${randomBytes(24).toString("base64url")}`;
      issued.push({ token, email: checked.email, expiresAt: Date.now() + lifetimeSeconds * 1000 });
      answer(200, { access_token: token, expires_in: lifetimeSeconds, token_type: "Bearer" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;

  const writeKeyFile = (name: string, privateKey: string, fileName = `${name}.json`): ServiceAccount => {
    const email = `${name}@scripted-project.iam.gserviceaccount.com`;
    const keyFile = join(dir, fileName);
    const key = {
      type: "service_account",
      project_id: "scripted-project",
      private_key_id: randomBytes(20).toString("hex"),
      private_key: privateKey,
      client_email: email,
      client_id: "1000000000000000000",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: tokenUri,
    };
    writeFileSync(keyFile, JSON.stringify(key, null, 2));
    return { email, keyFile };
  };

  const valid = (token: string) => issued.some((entry) => entry.token === token && entry.expiresAt > Date.now());

  return {
    tokenUri,
    issued,
    refusedAssertions,
    serviceAccount(name, { lifetimeSeconds }) {
      const pair = newKeyPair();
      const account = writeKeyFile(name, pair.privateKey);
      accounts.set(account.email, { publicKey: createPublicKey(pair.publicKey), lifetimeSeconds });
      return account;
    },
    foreignServiceAccount(name) {
      return writeKeyFile(name, newKeyPair().privateKey, `${name}-foreign.json`);
    },
    valid,
    revoke: (token) => {
      for (const entry of issued) if (entry.token === token) entry.expiresAt = 0;
    },
    vertexGate: (project, location) => (request) => vertexRefusal(request, project, location, valid),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const googleError = (status: number, code: string, message: string): Script => ({ status, json: { error: { code: status, message, status: code } } });

/** Vertex AI's refusal of a request, or undefined to let it through to the test's script. */
function vertexRefusal(request: ReceivedRequest, project: string, location: string, valid: (token: string) => boolean): Script | undefined {
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
  if (bearer === undefined || !valid(bearer)) {
    return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
  }
  const prefix = `/v1/projects/${project}/locations/${location}/`;
  const rest = request.path.startsWith(prefix) ? request.path.slice(prefix.length) : undefined;
  const claude = rest === undefined ? null : /^publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(rest);
  const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<string, unknown>;
  if (claude) {
    const problem =
      body.anthropic_version !== "vertex-2023-10-16"
        ? `anthropic_version: Input should be 'vertex-2023-10-16'`
        : "model" in body
          ? "model: Extra inputs are not permitted"
          : (claude[2] === "streamRawPredict") !== (body.stream === true)
            ? `stream: ${claude[2]} takes stream ${claude[2] === "streamRawPredict"}`
            : undefined;
    return problem === undefined ? undefined : { status: 400, json: { type: "error", error: { type: "invalid_request_error", message: problem } } };
  }
  if (rest === "endpoints/openapi/chat/completions") {
    return typeof body.model === "string" ? undefined : googleError(400, "INVALID_ARGUMENT", "model: required");
  }
  return googleError(404, "NOT_FOUND", `The requested URL ${request.path} was not found on this server.`);
}
