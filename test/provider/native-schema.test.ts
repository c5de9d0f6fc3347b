import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageSchema, packageSchemaJson } from "../../provider/dist/native/schema.js";
import { PLUGIN_VERSION } from "../../provider/dist/native/version.js";

const ROOT = join(__dirname, "../..");

describe("the gatewaykeys package schema", () => {
  it("is checked in as the contract's zod schemas generate it (run `npm run schema` when this fails)", () => {
    expect(readFileSync(join(ROOT, "provider/schema.json"), "utf8")).toBe(packageSchemaJson(PLUGIN_VERSION));
  });

  it("marks the secret output, the connection and the provisioning key secret, and takes bounds from the contract", () => {
    const schema = packageSchema(PLUGIN_VERSION) as any;
    const resource = schema.resources["gatewaykeys:index:ApiKey"];
    expect(resource.properties.secret.secret).toBe(true);
    expect(resource.inputProperties.connection.secret).toBe(true);
    expect(schema.config.variables.provisioningKey.secret).toBe(true);
    expect(schema.types["gatewaykeys:index:LoggingPolicy"].properties.retentionDays.description).toContain("From 1 to 365.");
    expect(resource.required).toEqual(expect.arrayContaining(["keyId", "version", "secretKnown"]));
    expect(resource.required).not.toContain("rotatedAt");
  });
});
