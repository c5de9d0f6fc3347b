import * as pulumi from "@pulumi/pulumi";

/**
 * A second baseline for the provider benchmark: a dynamic resource with exactly ApiKey's shape — the
 * same inputs, the same declared outputs, a secret output, outputs of the same size — whose provider
 * does nothing (no validation, no HTTP). `ApiKey / ShapedNoop` is what our provider code adds;
 * `ShapedNoop / floor` is what the engine and the Node SDK charge for a resource of this shape.
 */
const SHAPED_NOOP_MODULE = `exports.handler = () => ({
  create: async (inputs) => {
    const keyId = "key_" + Math.random().toString(36).slice(2).padEnd(20, "0");
    const at = new Date().toISOString();
    return { id: keyId, outs: { keyId, version: 1, secret: "gwk_" + "x".repeat(38), secretKnown: true, hint: "gwk_...xxxx",
      state: inputs.state, ownerId: "bench", baseUrl: "http://127.0.0.1:1", provisioningKeyHint: "gwp_...xxxx", name: inputs.name,
      spendPolicy: inputs.spendPolicy, loggingPolicy: inputs.loggingPolicy, modelPolicy: inputs.modelPolicy,
      rotationTrigger: inputs.rotationTrigger, createdAt: at, updatedAt: at, rotatedAt: null } };
  },
  delete: async () => {},
});
`;

/** ApiKey's declared outputs (see provider/src/api-key.ts). */
const OUTPUTS = ["keyId", "version", "secret", "secretKnown", "hint", "ownerId", "baseUrl", "provisioningKeyHint", "createdAt", "updatedAt", "rotatedAt"];

export class ShapedNoop extends pulumi.CustomResource {
  constructor(name: string, limitUnits: string, rotationTrigger: string) {
    const props: Record<string, unknown> = {
      __provider: SHAPED_NOOP_MODULE,
      name,
      state: "active",
      spendPolicy: { limitUnits, currency: "unit" },
      loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
      modelPolicy: { mode: "all", modelIds: [] },
      rotationTrigger,
      connection: undefined,
      adoptKeyId: undefined,
    };
    for (const output of OUTPUTS) props[output] = undefined;
    super("pulumi-nodejs:dynamic/bench:ShapedNoop", name, props, { additionalSecretOutputs: ["secret", "connection"] });
  }
}
