import { GatewayClient } from "@gateway-keys/sdk";
import type { ClientFactory } from "@gateway-keys/provider/runtime";
import { Agent } from "../../sdk/support/undici";

/** SDK clients for a provider under test that share one transport counting every request sent. */
export interface CountingClients {
  /** Pass as `createClient` to `createApiKeyProvider`. */
  createClient: ClientFactory;
  /** `METHOD /path` of each request sent so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export function countingClients(): CountingClients {
  const requests: string[] = [];
  const agent = new Agent().compose((dispatch) => (options, handler) => {
    requests.push(`${options.method} ${options.path}`);
    return dispatch(options, handler);
  });
  return {
    createClient: (connection) => new GatewayClient({ ...connection, dispatcher: agent }),
    requests,
    close: () => agent.close(),
  };
}
