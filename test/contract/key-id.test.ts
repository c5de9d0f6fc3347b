import { fieldIssues, KeyId } from "@gateway-keys/contract";

describe("KeyId", () => {
  it("accepts an id as the gateway makes it: key_ and 20 base62 characters", () => {
    expect(KeyId.parse("key_0r4B9TXiCfin7DT82uB3")).toBe("key_0r4B9TXiCfin7DT82uB3");
  });

  it("accepts ids of 1 to 60 base62 characters after the prefix", () => {
    expect(KeyId.safeParse("key_a").success).toBe(true);
    expect(KeyId.safeParse(`key_${"Z".repeat(60)}`).success).toBe(true);
  });

  it.each([
    ["an empty id", "key_"],
    ["an id too long", `key_${"Z".repeat(61)}`],
    ["another prefix", "pk_0r4B9TXiCfin7DT82uB3"],
    ["a character outside base62", "key_0r4B9TXi-fin7DT82uB3"],
    ["a path in disguise", "key_abc/../pk_def"],
    ["a number", 42],
  ])("rejects %s with a message that shows what an id looks like", (_label, value) => {
    const parsed = KeyId.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(fieldIssues(parsed.error!)).toEqual([{ path: "(body)", message: "expected a key id such as key_0r4B9TXiCfin7DT82uB3" }]);
  });
});
