import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { startTestGateway, type TestGateway } from "../support/gateway";
import { startRequestRecorder, type RequestRecorder } from "../support/request-recorder";
import { EngineSandbox, findLeaks, preview, refresh, runLifecycle, up, destroy, expectFailure } from "./harness";

/** ApiKey through the real engine (inline programs), against the real gateway over HTTP. */
describe("ApiKey", () => {
  let gateway: TestGateway;
  let recorder: RequestRecorder;
  let sandbox: EngineSandbox;

  beforeAll(async () => {
    gateway = await startTestGateway();
    recorder = await startRequestRecorder(gateway.baseUrl);
  });
  afterAll(async () => {
    await recorder.close();
    await gateway.stop();
  });
  beforeEach(async () => {
    sandbox = await EngineSandbox.create();
    recorder.reset();
  });
  afterEach(() => sandbox.dispose());

  /** A stack whose program declares one key with whatever `args()` says at the time of the run. */
  async function keyStack(args: () => ApiKeyArgs): Promise<auto.Stack> {
    return sandbox.inlineStack(
      "keys",
      async () => {
        const key = new ApiKey("ci", args());
        return { keyId: key.keyId, secret: key.secret, version: key.version, hint: key.hint };
      },
      { plain: { "gateway:baseUrl": recorder.baseUrl }, secret: { "gateway:provisioningKey": gateway.provisioningKey } },
    );
  }

  async function respond(secret: string): Promise<number> {
    const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "echo-1", input: "ping" }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  it("passes the full cycle; a policy change sends exactly one PATCH; nothing secret lands on disk", async () => {
    let args: ApiKeyArgs = { spendPolicy: { limitUnits: "100" } };
    const stack = await keyStack(() => args);
    let secret = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        secret = result.outputs.secret!.value as string;
        expect(result.outputs.secret!.secret).toBe(true);
        expect(await respond(secret)).toBe(200);
        expect(recorder.calls()).toEqual(["POST /v1/account/api-keys"]);
        recorder.reset();
      },
      edit: {
        async apply() {
          args = { spendPolicy: { limitUnits: "250.5" }, loggingPolicy: { retentionDays: 7 } };
          recorder.reset();
        },
        verify(result) {
          expect(recorder.calls()).toEqual(["PATCH /v1/account/api-keys/{id}"]);
          expect(result.outputs.version!.value).toBe(2);
          expect(result.outputs.secret!.value).toBe(secret);
        },
      },
    });
    expect(recorder.calls().filter((call) => call.startsWith("POST") && call.endsWith("/revoke"))).toHaveLength(1);
    expect(await respond(secret)).toBe(401);
    expect(await findLeaks(sandbox.backendDir, { secret, provisioningKey: gateway.provisioningKey })).toEqual([]);
  });
});
