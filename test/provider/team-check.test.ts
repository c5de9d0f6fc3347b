import { withChecksum } from "@gateway-keys/contract";
import { createTeamProvider } from "@gateway-keys/provider/runtime";

/** The Team provider's `check`: the contract's schemas at preview, no gateway call. */
describe("Team check", () => {
  const provider = createTeamProvider({ env: { GATEWAY_BASE_URL: "http://127.0.0.1:9", GATEWAY_PROVISIONING_KEY: withChecksum("provisioning", "A".repeat(32)) } });
  afterAll(() => provider.close());

  it("puts a spend policy's windows in their one order, and a single window written as windows in the single form", async () => {
    const several = await provider.check({}, { name: "search", spendPolicy: { windows: [{ limitUnits: "1000", resetPeriod: "monthly" }, { limitUnits: "50.0", resetPeriod: "daily" }] } });
    expect(several.failures).toEqual([]);
    expect(several.inputs.spendPolicy).toEqual({ currency: "unit", windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] });
    const one = await provider.check({}, { name: "search", spendPolicy: { windows: [{ limitUnits: "20", resetPeriod: "weekly" }] } });
    expect(one.inputs.spendPolicy).toEqual({ limitUnits: "20", currency: "unit", resetPeriod: "weekly" });
    expect(one.inputs).toMatchObject({ labels: {}, modelPolicy: { mode: "all", modelIds: [] }, budgetAlertThresholds: [] });
  });

  it("fails a bad program naming each property and what is allowed", async () => {
    const { failures } = await provider.check({}, {
      name: "",
      spendPolicy: { limitUnits: "10", windows: [{ limitUnits: "5", resetPeriod: "daily" }, { limitUnits: "6", resetPeriod: "daily" }] },
      rateLimitPolicy: {},
    });
    expect(failures).toEqual(
      expect.arrayContaining([
        { property: "name", reason: "must not be empty" },
        { property: "spendPolicy.limitUnits", reason: "must not be set beside windows: give each window its own limitUnits and resetPeriod" },
        { property: "spendPolicy.windows[1].resetPeriod", reason: 'must differ between windows: "daily" is repeated' },
        expect.objectContaining({ property: "rateLimitPolicy" }),
      ]),
    );
  });
});
