/**
 * A scripted Azure OpenAI resource: a scripted provider (scripted-provider.ts) that checks what
 * Azure checks before the test's script answers — the `api-version` of the dated API (400 without
 * it), the `api-key` header or an Entra bearer token (401 on any other), a deployment that exists
 * (404) — and refuses as Azure does. Every request is recorded, refused ones included.
 *
 *   const azure = await startScriptedAzure({ apiKey: "k", deployments: ["gpt-4o-prod"] });
 *
 * Only erasable TypeScript, like scripted-provider.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { startScriptedProvider, type ReceivedRequest, type Script, type ScriptedProvider } from "./scripted-provider.ts";

export interface ScriptedAzureOptions {
  /** The resource's key, accepted in the `api-key` header. */
  apiKey: string;
  /** Bearer tokens accepted in `Authorization` (Entra ID tokens), if any. */
  bearerTokens?: () => readonly string[];
  /** The deployments the resource has. */
  deployments: readonly string[];
}

const refusal = (status: number, code: string, message: string): Script => ({ status, json: { error: { code, message } } });

/** Azure's answer to a request it refuses before any model runs, or undefined to let it through. */
function azureGate(options: ScriptedAzureOptions): (request: ReceivedRequest) => Script | undefined {
  return (request) => {
    const key = request.headers["api-key"];
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
    const authenticated = key === options.apiKey || (bearer !== undefined && (options.bearerTokens?.() ?? []).includes(bearer));
    if (!authenticated) {
      return refusal(401, "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.");
    }
    const v1 = request.path.startsWith("/openai/v1/");
    if (!v1 && request.query["api-version"] === undefined) {
      return refusal(400, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.");
    }
    const deployment = /^\/openai\/deployments\/([^/]+)\//.exec(request.path)?.[1];
    if (deployment !== undefined && !options.deployments.includes(decodeURIComponent(deployment))) {
      return refusal(404, "DeploymentNotFound", "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.");
    }
    const model = typeof request.body === "object" && request.body !== null ? (request.body as { model?: unknown }).model : undefined;
    if ((v1 || request.path === "/openai/responses") && typeof model === "string" && !options.deployments.includes(model)) {
      return refusal(404, "DeploymentNotFound", `The API deployment ${model} does not exist.`);
    }
    return undefined;
  };
}

export function startScriptedAzure(options: ScriptedAzureOptions): Promise<ScriptedProvider> {
  return startScriptedProvider({ gate: azureGate(options) });
}

/** An App Service managed identity endpoint (what `IDENTITY_ENDPOINT` names), issuing Entra ID tokens. */
export interface ScriptedManagedIdentity {
  /** Set as IDENTITY_ENDPOINT, with {@link header} as IDENTITY_HEADER, for @azure/identity to find it. */
  endpoint: string;
  header: string;
  /** Every token issued, in order, with the resource it was asked for. */
  issued: { token: string; resource: string }[];
  close(): Promise<void>;
}

/**
 * Answers as App Service's identity endpoint does: a GET with the secret `X-IDENTITY-HEADER`
 * (401 without it), `api-version` and `resource`, answered with a bearer token that expires in an hour.
 */
export async function startScriptedManagedIdentity(): Promise<ScriptedManagedIdentity> {
  const header = `identity-header-${randomBytes(8).toString("hex")}`;
  const issued: { token: string; resource: string }[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://identity");
    const answer = (status: number, body: object) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.headers["x-identity-header"] !== header) return answer(401, { error: "unauthorized", error_description: "X-IDENTITY-HEADER is missing or wrong" });
    const resource = url.searchParams.get("resource");
    if (!url.searchParams.get("api-version") || !resource) return answer(400, { error: "invalid_request", error_description: "api-version and resource are required" });
    const token = `entra-${randomBytes(24).toString("base64url")}`;
    issued.push({ token, resource });
    answer(200, { access_token: token, expires_on: String(Math.floor(Date.now() / 1000) + 3600), resource, token_type: "Bearer" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/msi/token`,
    header,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
