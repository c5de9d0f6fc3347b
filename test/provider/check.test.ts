import { withChecksum } from "@gateway-keys/contract";
import { apiKeyProvider } from "@gateway-keys/provider/runtime";

/** `check` called directly, the way the plugin calls it: validation and defaults, no gateway. */
describe("ApiKey check", () => {
  beforeAll(() => apiKeyProvider.configure({ config: { get: () => undefined, require: () => "" } }));
  // A well-formed provisioning key; check never sends it anywhere.
  const connection = { baseUrl: "http://127.0.0.1:1", provisioningKey: withChecksum("provisioning", "A".repeat(32)) };

  it("fills every default so an unchanged program never shows a change", async () => {
    const result = await apiKeyProvider.check({}, { name: "ci", connection });
    expect(result).toEqual({ failures: [], inputs: {
      name: "ci",
      state: "active",
      loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
      modelPolicy: { mode: "all", modelIds: [] },
      connection,
    } });
  });

  it("writes a spend limit in one canonical spelling", async () => {
    const result = await apiKeyProvider.check({}, { name: "ci", spendPolicy: { limitUnits: "100.50" }, connection });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ spendPolicy: { limitUnits: "100.5", currency: "unit" } });
  });

  it("names every failing property path and what is allowed", async () => {
    const result = await apiKeyProvider.check({}, {
      name: "x".repeat(129),
      state: "revoked",
      spendPolicy: { limitUnits: "-1" },
      modelPolicy: { mode: "allowList", modelIds: [] },
      adoptKeyId: "not-a-key",
    });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "name", reason: "must be at most 128 characters" },
        { property: "state", reason: 'expected "active" or "disabled" (a key is revoked only by the revoke endpoint)' },
        expect.objectContaining({ property: "spendPolicy.limitUnits" }),
        { property: "modelPolicy.modelIds", reason: 'must name at least one model when mode is "allowList"' },
        expect.objectContaining({ property: "adoptKeyId" }),
      ]),
    );
  });

  it("passes values not known until apply through unchecked", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const news = { name: unknown, spendPolicy: { limitUnits: unknown }, connection };
    expect(await apiKeyProvider.check({}, news)).toEqual({ inputs: news, failures: [] });
  });

  it("never echoes a provisioning key given in the wrong shape", async () => {
    const pasted = "gwk_" + "A".repeat(38);
    const result = await apiKeyProvider.check({}, { name: "ci", connection: { baseUrl: "http://127.0.0.1:1", provisioningKey: pasted } });
    expect(result.failures).toHaveLength(1);
    expect(JSON.stringify(result.failures)).not.toContain(pasted);
  });

  it("asks for a gateway when neither the key, the stack config nor the environment names one", async () => {
    const saved = process.env.GATEWAY_BASE_URL;
    delete process.env.GATEWAY_BASE_URL;
    try {
      const result = await apiKeyProvider.check({}, { name: "ci" });
      expect(result.failures).toEqual([{ property: "connection", reason: expect.stringContaining("pulumi config set gateway:baseUrl") }]);
    } finally {
      if (saved !== undefined) process.env.GATEWAY_BASE_URL = saved;
    }
  });
});
