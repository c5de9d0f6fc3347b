import { CreateApiKeyRequest, DEFAULT_LOGGING_POLICY, DEFAULT_MODEL_POLICY, fieldIssues, KeyPolicies, UpdateApiKeyRequest } from "@gateway-keys/contract";

describe("KeyPolicies", () => {
  it("fills the logging, model, label and budget-alert defaults and leaves a missing spend policy, rate limit, expiry and alert times out", () => {
    expect(KeyPolicies.parse({})).toEqual({ loggingPolicy: DEFAULT_LOGGING_POLICY, modelPolicy: DEFAULT_MODEL_POLICY, labels: {}, budgetAlertThresholds: [] });
  });

  it("takes null as no spending cap", () => {
    expect(KeyPolicies.parse({ spendPolicy: null }).spendPolicy).toBeNull();
  });

  it("is the policy part of a create body", () => {
    const policies = { spendPolicy: { limitUnits: "3" }, loggingPolicy: { retentionDays: 7 }, modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } };
    const { name: _name, state: _state, ...created } = CreateApiKeyRequest.parse({ name: "ci", ...policies });
    expect(created).toEqual(KeyPolicies.parse(policies));
  });

  it("leaves out of a change body every policy the change does not name", () => {
    expect(UpdateApiKeyRequest.parse({ expectedVersion: 2, modelPolicy: { mode: "all" } })).toEqual({
      expectedVersion: 2,
      modelPolicy: { mode: "all", modelIds: [] },
    });
  });

  it("checks a changed policy as strictly as a created one", () => {
    const parsed = UpdateApiKeyRequest.safeParse({ expectedVersion: 2, loggingPolicy: { retentionDays: 0, keepForever: true } });
    expect(fieldIssues(parsed.error!)).toEqual(
      expect.arrayContaining([
        { path: "loggingPolicy.retentionDays", message: "must be between 1 and 365" },
        { path: "loggingPolicy", message: "unknown field(s) keepForever" },
      ]),
    );
  });
});
