import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { useKeyTestEnvironment } from "./fixture";
import { expectFailure, preview } from "@gateway-keys/testkit/engine";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A bad program fails at preview, naming the property and what is allowed, before any gateway call. */
describe("ApiKey input validation at preview", () => {
  const env = useKeyTestEnvironment();

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
    const stack = await env.sandbox.inlineStack(
      "check",
      async () => {
        new ApiKey("bad", args);
      },
      env.stackConfig(),
    );
    const failure = await expectFailure(preview(stack));
    // The engine's wording: "resource 'bad': property <path> value <v> has a problem: <reason>".
    for (const reason of reasons) {
      const separator = reason.indexOf(": ");
      const [path, message] = [reason.slice(0, separator), reason.slice(separator + 2)];
      expect(failure).toContain(`resource 'bad': property ${path} value`);
      expect(failure).toMatch(new RegExp(`property ${escape(path)} value .* has a problem: ${escape(message)}`));
    }
    expect(env.recorder.calls()).toEqual([]);
    // A value in the wrong place may be a real secret: the failure names the property, never the value.
    expect(failure).not.toContain("gwk_not-a-provisioning-key");
  });

  it("says how to configure the gateway when none is configured", async () => {
    const stack = await env.sandbox.inlineStack("unconfigured", async () => {
      new ApiKey("orphan", {});
    });
    const failure = await expectFailure(preview(stack));
    expect(failure).toContain("no gateway configured: run `pulumi config set gateway:baseUrl <url>`");
  });
});
