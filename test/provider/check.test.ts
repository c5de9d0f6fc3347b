import { withChecksum } from "@gateway-keys/contract";
import { createApiKeyProvider, UNKNOWN } from "@gateway-keys/provider/runtime";

/** `check` called directly, the way the plugin calls it: validation and defaults, no gateway. */
describe("ApiKey check", () => {
  // A provider that sees no stack config and an empty environment, whatever the machine running the tests has.
  const provider = createApiKeyProvider({ env: {} });
  // A well-formed provisioning key; check never sends it anywhere.
  const provisioningKey = withChecksum("provisioning", "A".repeat(32));
  const connection = { baseUrl: "http://127.0.0.1:1", provisioningKey };

  it("fills every default so an unchanged program never shows a change", async () => {
    const result = await provider.check({}, { name: "ci", connection });
    expect(result).toEqual({ failures: [], inputs: {
      name: "ci",
      state: "active",
      loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
      modelPolicy: { mode: "all", modelIds: [] },
      labels: {},
      budgetAlertThresholds: [],
      connection,
    } });
  });

  it("sends the alert durations as the contract's seconds: expiryWarning as expiryWarningSeconds, rotateAfter as rotateAfterSeconds", async () => {
    const result = await provider.check({}, { name: "ci", budgetAlertThresholds: [0.5, 0.8, 1], expiryWarning: "7d", rotateAfter: "30d", connection });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({
      budgetAlertThresholds: [0.5, 0.8, 1],
      expiryWarning: "7d",
      expiryWarningSeconds: 604_800,
      rotateAfter: "30d",
      rotateAfterSeconds: 2_592_000,
    });
    // Set by the provider only: a program's own value is dropped, not sent.
    const declared = await provider.check({}, { name: "ci", rotateAfterSeconds: 60, expiryWarningSeconds: 60, connection });
    expect(declared.inputs).not.toHaveProperty("rotateAfterSeconds");
    expect(declared.inputs).not.toHaveProperty("expiryWarningSeconds");
  });

  it("names a bad threshold list and a bad expiry warning with what is allowed", async () => {
    const result = await provider.check({}, { name: "ci", budgetAlertThresholds: [0.8, 0.5, 2], expiryWarning: "2y", connection });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "budgetAlertThresholds[2]", reason: "expected a fraction greater than 0 and at most 1, e.g. 0.8 for 80% of the spend limit" },
        { property: "expiryWarning", reason: expect.stringContaining('expected a duration such as "7d"') },
      ]),
    );
  });

  it("keeps retireWhenIdle and inUseWarning beside the grace period they belong to", async () => {
    const result = await provider.check({}, { name: "ci", rotationGracePeriod: "1h", retireWhenIdle: "15m", inUseWarning: "10m", connection });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ rotationGracePeriod: "1h", retireWhenIdle: "15m", inUseWarning: "10m" });
  });

  it("refuses retireWhenIdle and inUseWarning without a grace period, naming each and what to set", async () => {
    for (const grace of [undefined, "0s"]) {
      const result = await provider.check({}, { name: "ci", rotationGracePeriod: grace, retireWhenIdle: "15m", inUseWarning: "5m", connection });
      expect(result.failures).toEqual([
        { property: "retireWhenIdle", reason: expect.stringContaining("needs rotationGracePeriod (e.g. \"1h\"): without a grace period the replaced secret stops at once") },
        { property: "inUseWarning", reason: expect.stringContaining("needs rotationGracePeriod") },
      ]);
    }
  });

  it("refuses an inUseWarning that does not fall inside the grace period, and a retireWhenIdle out of bounds", async () => {
    const late = await provider.check({}, { name: "ci", rotationGracePeriod: "1h", inUseWarning: "60m", connection });
    expect(late.failures).toEqual([{ property: "inUseWarning", reason: expect.stringContaining("must be shorter than rotationGracePeriod (1h)") }]);
    const bounds = await provider.check({}, { name: "ci", rotationGracePeriod: "1h", retireWhenIdle: "2s", connection });
    expect(bounds.failures).toEqual([{ property: "retireWhenIdle", reason: expect.stringContaining("from 5s to 7d") }]);
    const spelling = await provider.check({}, { name: "ci", rotationGracePeriod: "1h", retireWhenIdle: "15 minutes", connection });
    expect(spelling.failures).toEqual([{ property: "retireWhenIdle", reason: expect.stringContaining('expected a duration such as "15m"') }]);
  });

  it("writes a spend limit in one canonical spelling", async () => {
    const result = await provider.check({}, { name: "ci", spendPolicy: { limitUnits: "100.50" }, connection });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ spendPolicy: { limitUnits: "100.5", currency: "unit" } });
  });

  it("names every failing property path and what is allowed", async () => {
    const result = await provider.check({}, {
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

  it("names the failing path of each key policy: reset period, rate limits, expiry, labels", async () => {
    const result = await provider.check({}, {
      name: "ci",
      spendPolicy: { limitUnits: "5", resetPeriod: "yearly" },
      rateLimitPolicy: { requestsPerMinute: 0 },
      expiresAt: "tomorrow",
      labels: { "Bad Name": "x" },
      connection,
    });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "spendPolicy.resetPeriod", reason: 'expected "never", "daily", "weekly" or "monthly"' },
        { property: "rateLimitPolicy.requestsPerMinute", reason: "expected a whole number of requests from 1 to 1000000" },
        expect.objectContaining({ property: "expiresAt", reason: expect.stringContaining("ISO 8601") }),
        expect.objectContaining({ property: expect.stringMatching(/^labels/), reason: expect.stringContaining("label names") }),
      ]),
    );
    const empty = await provider.check({}, { name: "ci", rateLimitPolicy: {}, connection });
    expect(empty.failures).toEqual([expect.objectContaining({ property: "rateLimitPolicy", reason: expect.stringContaining("at least one of") })]);
  });

  it("writes an expiry in UTC, so the same instant in another zone is no change", async () => {
    const result = await provider.check({}, { name: "ci", expiresAt: "2099-01-01T01:00:00+01:00", connection });
    expect(result.inputs).toMatchObject({ expiresAt: "2099-01-01T00:00:00.000Z" });
  });

  it("passes values not known until apply through unchecked", async () => {
    const news = { name: UNKNOWN, spendPolicy: { limitUnits: UNKNOWN }, connection };
    expect(await provider.check({}, news)).toEqual({ inputs: news, failures: [] });
  });

  it("checks every known input while the connection is not known yet, and passes the connection through", async () => {
    const failed = await provider.check({}, { name: "", connection: UNKNOWN });
    expect(failed.failures).toEqual([{ property: "name", reason: "must not be empty" }]);
    const passed = await provider.check({}, { name: "ci", connection: { baseUrl: UNKNOWN, provisioningKey } });
    expect(passed).toEqual({ failures: [], inputs: expect.objectContaining({ name: "ci", connection: { baseUrl: UNKNOWN, provisioningKey } }) });
  });

  it("never echoes a provisioning key given in the wrong shape", async () => {
    const pasted = "gwk_" + "A".repeat(38);
    const result = await provider.check({}, { name: "ci", connection: { baseUrl: "http://127.0.0.1:1", provisioningKey: pasted } });
    expect(result.failures).toHaveLength(1);
    expect(JSON.stringify(result.failures)).not.toContain(pasted);
  });

  it("refuses a gateway URL that holds a user name or password", async () => {
    const result = await provider.check({}, { name: "ci", connection: { baseUrl: "https://me:pw@gateway.example", provisioningKey } });
    expect(result.failures).toEqual([
      { property: "connection.baseUrl", reason: "must not contain a user name or password (the URL is stored in plain text)" },
    ]);
  });

  it("names an unknown connection field", async () => {
    const result = await provider.check({}, { name: "ci", connection: { ...connection, token: "x" } });
    expect(result.failures).toEqual([{ property: "connection", reason: "unknown field(s) token" }]);
  });

  it("drops the engine's own properties from the inputs it hands on", async () => {
    const result = await provider.check({}, { name: "ci", connection, __provider: "exports.handler = () => ({});" });
    expect(result.failures).toEqual([]);
    expect(result.inputs).not.toHaveProperty("__provider");
  });

  it("asks for a gateway when neither the key, the stack config nor the environment names one, as a problem of the resource", async () => {
    const result = await provider.check({}, { name: "ci" });
    // No property: the engine would print "property connection value {<nil>}" for a key with no `connection` at all.
    expect(result.failures).toEqual([{ property: "", reason: expect.stringContaining("pulumi config set gateway:baseUrl") }]);
  });

  it("takes the connection from the key, then the stack config, then the environment, field by field", async () => {
    const fromEnvironment = createApiKeyProvider({ env: { GATEWAY_BASE_URL: "http://127.0.0.1:2", GATEWAY_PROVISIONING_KEY: provisioningKey } });
    expect((await fromEnvironment.check({}, { name: "ci" })).failures).toEqual([]);
    const configured = createApiKeyProvider({ env: { GATEWAY_PROVISIONING_KEY: provisioningKey } });
    expect((await configured.check({}, { name: "ci" })).failures).toEqual([
      { property: "", reason: expect.stringContaining("no gateway configured") },
    ]);
    await configured.configure({ config: { get: (key: string) => (key === "gateway:baseUrl" ? "http://127.0.0.1:3" : undefined), require: () => "" } });
    expect((await configured.check({}, { name: "ci" })).failures).toEqual([]);
  });

  it("says which configured value is unusable without quoting it", async () => {
    const pasted = "gwk_" + "B".repeat(38);
    const misconfigured = createApiKeyProvider({ env: { GATEWAY_BASE_URL: "ftp://gateway.example", GATEWAY_PROVISIONING_KEY: pasted } });
    const result = await misconfigured.check({}, { name: "ci" });
    expect(result.failures).toEqual([{ property: "", reason: expect.stringContaining("the configured baseUrl: expected an http:// or https:// URL") }]);
    expect(result.failures[0]!.reason).toContain("the configured provisioningKey: expected a provisioning key");
    expect(JSON.stringify(result.failures)).not.toContain(pasted);
  });
});
