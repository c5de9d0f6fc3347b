import { once } from "node:events";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { withChecksum } from "@gateway-keys/contract";
import { ApiKeyInputs, createApiKeyProvider, type ConfigNamespace } from "@gateway-keys/provider/runtime";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

/**
 * Failure messages name the settings of the front door in use: `gateway:...` for the dynamic
 * provider, `gatewaykeys:...` for the native plugin, whose config keys carry its package name.
 */
describe("messages name the config keys of the provider's namespace", () => {
  let gateway: TestGateway;
  /** Accepts connections and never answers: every call runs into the time limit. */
  let silent: Server;
  const held: Socket[] = [];
  /** A port nothing listens on (a server's, closed again). */
  let closedPort: number;
  beforeAll(async () => {
    gateway = await startTestGateway();
    silent = createServer((socket) => void held.push(socket)).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await gateway.stop();
  });

  /** The message of a create through a provider of `namespace` whose settings are `env`. */
  async function createFails(namespace: ConfigNamespace, env: Record<string, string>): Promise<string> {
    const provider = createApiKeyProvider({ env, configNamespace: namespace });
    try {
      const inputs = ApiKeyInputs.parse({ name: "ci", clientReference: `urn:pulumi:test::messages::${namespace}:index:ApiKey::ci` });
      const error = await provider.create(inputs).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(Error);
      return (error as Error).message;
    } finally {
      await provider.close();
    }
  }

  const silentUrl = () => `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const unknownKey = withChecksum("provisioning", "0".repeat(32));
  /** Each namespace twice: once for each `%s` of a test's title. */
  const BOTH: Array<[ConfigNamespace, ConfigNamespace]> = [
    ["gateway", "gateway"],
    ["gatewaykeys", "gatewaykeys"],
  ];

  it.each(BOTH)("%s: a call that runs out of time names %s:requestTimeout", async (namespace: ConfigNamespace) => {
    const message = await createFails(namespace, {
      GATEWAY_BASE_URL: silentUrl(),
      GATEWAY_PROVISIONING_KEY: gateway.provisioningKey,
      GATEWAY_REQUEST_TIMEOUT: "1",
    });
    expect(message).toContain(`did not answer within 1 s (${namespace}:requestTimeout)`);
    expect(message).not.toContain(gateway.provisioningKey);
  });

  it.each(BOTH)("%s: an unreachable gateway names %s:baseUrl", async (namespace: ConfigNamespace) => {
    const message = await createFails(namespace, {
      GATEWAY_BASE_URL: `http://127.0.0.1:${closedPort}`,
      GATEWAY_PROVISIONING_KEY: gateway.provisioningKey,
      GATEWAY_REQUEST_TIMEOUT: "5",
    });
    expect(message).toMatch(new RegExp(`could not be reached( \\(\\w+\\))?\\. Check that it is running and that ${namespace}:baseUrl is right`));
  });

  it.each(BOTH)("%s: a refused provisioning key names %s:provisioningKey", async (namespace: ConfigNamespace) => {
    const message = await createFails(namespace, { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: unknownKey });
    expect(message).toContain(`refused the provisioning key (invalid_credentials): set ${namespace}:provisioningKey`);
    expect(message).not.toContain(unknownKey);
  });
});
