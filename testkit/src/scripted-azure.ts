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
