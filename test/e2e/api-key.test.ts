import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { startTestGateway, type TestGateway } from "../support/gateway";
import { startRequestRecorder, type RequestRecorder } from "../support/request-recorder";
import { destroy, EngineSandbox, findLeaks, preview, runLifecycle, storedResources, up } from "./harness";

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

  it("rotates in place when rotationTrigger changes: one rotate, same keyId, the old secret stops working", async () => {
    let trigger = "2026-11";
    const stack = await keyStack(() => ({ rotationTrigger: trigger }));
    const first = await up(stack);
    const oldSecret = first.result.outputs.secret!.value as string;
    const keyId = first.result.outputs.keyId!.value as string;

    trigger = "2026-12";
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.result.changeSummary.replace ?? 0).toBe(0);
    expect(plan.output).toMatch(/~\s+rotationTrigger\s*:\s*"2026-11"\s*=>\s*"2026-12"/);

    recorder.reset();
    const rotated = await up(stack);
    expect(recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/rotate"]);
    const newSecret = rotated.result.outputs.secret!.value as string;
    expect(rotated.result.outputs.keyId!.value).toBe(keyId);
    expect(newSecret).not.toBe(oldSecret);
    expect(await respond(oldSecret)).toBe(401);
    expect(await respond(newSecret)).toBe(200);
    await preview(stack, { expectNoChanges: true });
    expect(await findLeaks(sandbox.backendDir, { oldSecret, newSecret, provisioningKey: gateway.provisioningKey })).toEqual([]);
    await destroy(stack);
  });

  it("makes no gateway request for an up with no changes", async () => {
    const stack = await keyStack(() => ({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } }));
    await up(stack);
    recorder.reset();
    const again = await up(stack);
    expect(again.result.summary.resourceChanges).toEqual({ same: 2 });
    expect(recorder.calls()).toEqual([]);
    await destroy(stack);
  });

  it("keeps each key's state under 3 KB in the backend file, __provider included", async () => {
    const stack = await keyStack(() => ({ spendPolicy: { limitUnits: "100" }, rotationTrigger: 1 }));
    await up(stack);
    const keys = (await storedResources(sandbox.backendDir)).filter((r) => r.type.endsWith("gateway:ApiKey"));
    expect(keys).toHaveLength(1);
    expect(Buffer.byteLength(JSON.stringify(keys[0]))).toBeLessThanOrEqual(3 * 1024);
    expect(String(keys[0]!.outputs!.__provider).length).toBeLessThanOrEqual(200);
    await destroy(stack);
  });
});

