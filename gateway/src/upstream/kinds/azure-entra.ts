import { DefaultAzureCredential, getBearerTokenProvider } from "@azure/identity";
import { libraryTokenSource, type TokenSource } from "./common";

/** The scope of a token for Azure OpenAI (Cognitive Services) resources. */
const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

/**
 * Microsoft Entra ID tokens through @azure/identity's DefaultAzureCredential: whatever the host
 * offers, in the library's order — a service principal's environment variables
 * (AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET or a certificate), workload identity,
 * a managed identity, a developer's Azure CLI login. `getBearerTokenProvider` caches the token
 * and refreshes it before it expires, so a request waits for a token only when none is valid.
 */
export function entraTokenSource(provider: string): TokenSource {
  const credential = new DefaultAzureCredential();
  // The token provider caches its token with no way to drop it: a new one forgets it.
  return libraryTokenSource(provider, () => getBearerTokenProvider(credential, COGNITIVE_SERVICES_SCOPE), "DefaultAzureCredential gave no token");
}
