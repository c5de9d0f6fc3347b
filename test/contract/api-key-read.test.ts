import { ApiKey, looseEnum, type Unrecognized } from "@gateway-keys/contract";

const record = {
  object: "api_key",
  keyId: "key_0r4B9TXiCfin7DT82uB3",
  ownerId: "acme",
  name: "ci",
  state: "active",
  version: 3,
  hint: "gwk_...AbCd",
  spendPolicy: { limitUnits: "100.50", currency: "unit" },
  loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
  spentUnits: "2.500000",
  createdAt: "2030-01-01T00:00:00.000Z",
  updatedAt: "2030-01-01T00:00:00.000Z",
  rotatedAt: null,
  revokedAt: null,
};

describe("ApiKey (the read schema)", () => {
  it("keeps a known mode and currency typed, so a comparison needs no cast", () => {
    const key = ApiKey.parse(record);
    const mode: "all" | "allowList" | Unrecognized = key.modelPolicy.mode;
    expect(mode === "allowList").toBe(true);
    expect(key.spendPolicy?.currency === "unit").toBe(true);
  });

  it("reads a mode and a currency a newer gateway added, without failing", () => {
    const key = ApiKey.parse({ ...record, spendPolicy: { limitUnits: "5", currency: "eur" }, modelPolicy: { mode: "denyList", modelIds: ["echo-1"] } });
    expect(key.modelPolicy.mode).toBe("denyList");
    expect(key.spendPolicy?.currency).toBe("eur");
  });

  it("reads amounts of credits in their canonical spelling", () => {
    const key = ApiKey.parse(record);
    expect(key.spendPolicy).toMatchObject({ limitUnits: "100.5" });
    expect(key.spentUnits).toBe("2.5");
  });

  it("strips fields a newer gateway added", () => {
    expect(ApiKey.parse({ ...record, budgetAlerts: [{ at: "0.8" }] })).not.toHaveProperty("budgetAlerts");
  });
});

describe("looseEnum", () => {
  const Mode = looseEnum(["all", "allowList"]);

  it("types an unknown value apart, so a plain string cannot pass for a known one", () => {
    const known: "all" | "allowList" | Unrecognized = Mode.parse("all");
    // @ts-expect-error a value read loosely may be one this contract does not know
    const narrow: "all" | "allowList" = Mode.parse("all");
    expect([known, narrow]).toEqual(["all", "all"]);
  });

  it("refuses what is not a string at all", () => {
    expect(Mode.safeParse(3).success).toBe(false);
  });
});
