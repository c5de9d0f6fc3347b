import { EngineSandbox, startRequestRecorder, startTestGateway, type RequestRecorder, type StackConfig, type TestGateway, type TestGatewayOptions } from "@gateway-keys/testkit";

/**
 * What every engine test of keys needs: one real gateway per test file, behind a recording proxy,
 * and a fresh engine sandbox per test. Registers its own jest hooks; read the fields inside tests.
 */
export interface KeyTestEnvironment {
  gateway: TestGateway;
  /** Records every request the provider sends; point stacks at `recorder.baseUrl`. */
  recorder: RequestRecorder;
  sandbox: EngineSandbox;
  /** Stack config that connects a program to the gateway through the recorder. */
  stackConfig(): StackConfig;
  /** HTTP status of a model request made with `secret`: 200 when the key works, 401 once revoked. */
  statusWith(secret: string, model?: string): Promise<number>;
}

export function useKeyTestEnvironment(options: TestGatewayOptions = {}): KeyTestEnvironment {
  const env = {} as KeyTestEnvironment;
  beforeAll(async () => {
    env.gateway = await startTestGateway(options);
    env.recorder = await startRequestRecorder(env.gateway.baseUrl);
  });
  afterAll(async () => {
    await env.recorder.close();
    await env.gateway.stop();
  });
  beforeEach(async () => {
    env.sandbox = await EngineSandbox.create();
    env.recorder.reset();
  });
  afterEach(() => env.sandbox.dispose());

  env.stackConfig = () => ({
    plain: { "gateway:baseUrl": env.recorder.baseUrl },
    secret: { "gateway:provisioningKey": env.gateway.provisioningKey },
  });
  env.statusWith = async (secret, model = "echo-1") => {
    const response = await fetch(`${env.gateway.baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model, input: "ping" }),
    });
    await response.arrayBuffer();
    return response.status;
  };
  return env;
}
