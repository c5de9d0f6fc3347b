import { CreateApiKeyRequest, fieldIssues, LimitUnits, ReadUnits, UpdateApiKeyRequest } from "@gateway-keys/contract";

const FORMAT = 'expected a decimal string such as "100" or "12.5" (at most 12 integer and 6 fraction digits, no sign or exponent)';

describe("LimitUnits", () => {
  it.each([
    ["100.50", "100.5"],
    ["100.000000", "100"],
    ["12.5", "12.5"],
    ["0.000001", "0.000001"],
    ["999999999999.999999", "999999999999.999999"],
  ])("writes %s as %s, one spelling per amount", (written, canonical) => {
    const amount: string = LimitUnits.parse(written);
    expect(amount).toBe(canonical);
  });

  it.each([
    ["zero", "0", "must be greater than 0"],
    ["zero with a fraction", "0.000000", "must be greater than 0"],
    ["a sign", "-1", FORMAT],
    ["an exponent", "1e5", FORMAT],
    ["seven fraction digits", "1.0000001", FORMAT],
    ["a leading zero", "0100", FORMAT],
    ["a number", 100, 'expected a decimal string such as "100" or "12.5"'],
  ])("rejects %s with one message saying what is allowed", (_label, value, message) => {
    const parsed = LimitUnits.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(fieldIssues(parsed.error!)).toEqual([{ path: "(body)", message }]);
  });

  it("gives create and change bodies the canonical amount", () => {
    expect(CreateApiKeyRequest.parse({ name: "ci", spendPolicy: { limitUnits: "7.10" } }).spendPolicy).toEqual({
      limitUnits: "7.1",
      currency: "unit",
      resetPeriod: "never",
    });
    expect(UpdateApiKeyRequest.parse({ expectedVersion: 1, spendPolicy: { limitUnits: "7.10" } }).spendPolicy).toEqual({
      limitUnits: "7.1",
      currency: "unit",
      resetPeriod: "never",
    });
  });

  it("names the field of an amount that is not one", () => {
    const parsed = CreateApiKeyRequest.safeParse({ name: "ci", spendPolicy: { limitUnits: "0" } });
    expect(fieldIssues(parsed.error!)).toEqual([{ path: "spendPolicy.limitUnits", message: "must be greater than 0" }]);
  });
});

describe("ReadUnits", () => {
  it("reads an amount the contract allows in its canonical spelling", () => {
    expect(ReadUnits.parse("100.50")).toBe("100.5");
    expect(ReadUnits.parse("0")).toBe("0");
  });

  it("reads any other string as sent, so an unusual gateway never breaks a client", () => {
    expect(ReadUnits.parse("-3.50")).toBe("-3.50");
    expect(ReadUnits.parse("1e3")).toBe("1e3");
  });
});
