import { ApiKey, fieldIssues, SpendPolicy, spendWindowsOf } from "@gateway-keys/contract";

describe("SpendPolicy's windows form", () => {
  it("reads the single-window form as before", () => {
    expect(SpendPolicy.parse({ limitUnits: "100.50" })).toEqual({ limitUnits: "100.5", currency: "unit", resetPeriod: "never" });
  });

  it("normalises a windows form of one window to the single-window form", () => {
    expect(SpendPolicy.parse({ windows: [{ limitUnits: "50", resetPeriod: "daily" }] })).toEqual({ limitUnits: "50", currency: "unit", resetPeriod: "daily" });
  });

  it("orders two or more windows never, daily, weekly, monthly", () => {
    const policy = SpendPolicy.parse({
      windows: [
        { limitUnits: "1000", resetPeriod: "monthly" },
        { limitUnits: "5000" },
        { limitUnits: "50", resetPeriod: "daily" },
      ],
    });
    expect(policy).toEqual({
      currency: "unit",
      windows: [
        { limitUnits: "5000", resetPeriod: "never" },
        { limitUnits: "50", resetPeriod: "daily" },
        { limitUnits: "1000", resetPeriod: "monthly" },
      ],
    });
    expect(spendWindowsOf(policy).map((window) => window.resetPeriod)).toEqual(["never", "daily", "monthly"]);
  });

  it("refuses a repeated period, limitUnits beside windows, five windows and a missing limit, naming each field", () => {
    const repeated = SpendPolicy.safeParse({ windows: [{ limitUnits: "1", resetPeriod: "daily" }, { limitUnits: "2", resetPeriod: "daily" }] });
    expect(fieldIssues(repeated.error!)).toEqual([{ path: "windows[1].resetPeriod", message: 'must differ between windows: "daily" is repeated' }]);
    const beside = SpendPolicy.safeParse({ limitUnits: "1", windows: [{ limitUnits: "2", resetPeriod: "daily" }] });
    expect(fieldIssues(beside.error!)).toEqual([{ path: "limitUnits", message: expect.stringContaining("must not be set beside windows") }]);
    const five = SpendPolicy.safeParse({ windows: ["never", "daily", "weekly", "monthly", "daily"].map((resetPeriod) => ({ limitUnits: "1", resetPeriod })) });
    expect(fieldIssues(five.error!)).toEqual(expect.arrayContaining([{ path: "windows", message: "must hold at most 4 windows" }]));
    const none = SpendPolicy.safeParse({ currency: "unit" });
    expect(fieldIssues(none.error!)).toEqual([{ path: "limitUnits", message: expect.stringContaining("decimal string") }]);
  });

  it("reads either form back from a key record, and lists its windows alike", () => {
    const record = { object: "api_key", keyId: "key_1", ownerId: "o", name: "k", state: "active", version: 1, hint: "gwk_…abcd", loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 }, modelPolicy: { mode: "all", modelIds: [] }, spentUnits: "0", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", rotatedAt: null, revokedAt: null };
    const several = ApiKey.parse({ ...record, spendPolicy: { currency: "unit", windows: [{ limitUnits: "50.0", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] } });
    expect(spendWindowsOf(several.spendPolicy)).toEqual([{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }]);
    const single = ApiKey.parse({ ...record, spendPolicy: { limitUnits: "7", currency: "unit" } });
    expect(spendWindowsOf(single.spendPolicy)).toEqual([{ limitUnits: "7", resetPeriod: "never" }]);
    expect(several.teamId).toBeNull();
  });
});
