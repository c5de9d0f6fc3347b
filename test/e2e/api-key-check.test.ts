import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { startTestGateway, type TestGateway } from "../support/gateway";
import { startRequestRecorder, type RequestRecorder } from "../support/request-recorder";
import { EngineSandbox, expectFailure, preview } from "./harness";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A bad program fails at preview, naming the property and what is allowed, before any gateway call. */
describe("ApiKey input validation at preview", () => {
  let gateway: TestGateway;
  let recorder: RequestRecorder;
  let sandbox: EngineSandbox;

  beforeAll(async () => {
    gateway = await startTestGateway();
    recorder = await startRequestRecorder(gateway.baseUrl);
    sandbox = await EngineSandbox.create();
  });
  afterAll(async () => {
    await sandbox.dispose();
    await recorder.close();
    await gateway.stop();
  });

  const invalidPrograms: Array<[string, ApiKeyArgs, string[]]> = [
    [
      "a malformed spend limit and a retention out of range",
      { spendPolicy: { limitUnits: "1e5" }, loggingPolicy: { retentionDays: 400 } } as ApiKeyArgs,
      [
        'spendPolicy.limitUnits: expected a decimal string such as "100" or "12.5"',
        "loggingPolicy.retentionDays: must be between 1 and 365",
      ],
    ],
    ["an empty name", { name: "" }, ["name: must not be empty"]],
    ["a revoked state", { state: "revoked" } as unknown as ApiKeyArgs, ['state: expected "active" or "disabled"']],
    [
      "model ids with mode all, and an unknown policy field",
      { modelPolicy: { mode: "all", modelIds: ["echo-1"] }, loggingPolicy: { keepForever: true } } as unknown as ApiKeyArgs,
      ['modelPolicy.modelIds: must be empty when mode is "all"', "loggingPolicy: unknown field(s) keepForever"],
    ],
    [
      "a connection that is not a gateway and a provisioning key",
      { connection: { baseUrl: "ftp://example", provisioningKey: "gwk_not-a-provisioning-key" } },
      ["connection.baseUrl: expected an http:// or https:// URL", "connection.provisioningKey: expected a provisioning key"],
    ],
  ];

  it.each(invalidPrograms)("rejects %s with zero gateway calls", async (_label, args, reasons) => {
    const stack = await sandbox.inlineStack(
      "check",
      async () => {
        new ApiKey("bad", args);
      },
      { plain: { "gateway:baseUrl": recorder.baseUrl }, secret: { "gateway:provisioningKey": gateway.provisioningKey } },
    );
    recorder.reset();
    const failure = await expectFailure(preview(stack));
    // The engine's wording: "resource 'bad': property <path> value <v> has a problem: <reason>".
    for (const reason of reasons) {
      const separator = reason.indexOf(": ");
      const [path, message] = [reason.slice(0, separator), reason.slice(separator + 2)];
      expect(failure).toContain(`resource 'bad': property ${path} value`);
      expect(failure).toMatch(new RegExp(`property ${escape(path)} value .* has a problem: ${escape(message)}`));
    }
    expect(recorder.calls()).toEqual([]);
    expect(failure).not.toContain(gateway.provisioningKey);
  });

  it("says how to configure the gateway when none is configured", async () => {
    const stack = await sandbox.inlineStack("unconfigured", async () => {
      new ApiKey("orphan", {});
    });
    const failure = await expectFailure(preview(stack));
    expect(failure).toContain("no gateway configured: run `pulumi config set gateway:baseUrl <url>`");
  });
});
