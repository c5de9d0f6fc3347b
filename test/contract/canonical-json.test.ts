import fc from "fast-check";
import { canonicalJson } from "@gateway-keys/contract";

/** The same value with every object's keys inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, reversedKeys(inner)]));
  }
  return value;
}

describe("canonicalJson", () => {
  it("sorts object keys by code unit at every depth", () => {
    expect(canonicalJson({ b: 1, a: { z: [{ y: 1, x: 2 }], B: true }, "é": null })).toBe('{"a":{"B":true,"z":[{"x":2,"y":1}]},"b":1,"é":null}');
  });

  it("leaves out properties whose value is undefined", () => {
    expect(canonicalJson({ a: undefined, b: { c: undefined } })).toBe('{"b":{}}');
  });

  it("keeps arrays in order, writing undefined in them as null", () => {
    expect(canonicalJson([3, undefined, 1])).toBe("[3,null,1]");
  });

  it("writes undefined itself as null, so a missing value and null compare equal", () => {
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson(null)).toBe("null");
  });

  it("throws on a cycle instead of writing a placeholder two values could share", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });

  it("gives the same text whatever the key order, and text that parses back to the value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(reversedKeys(value))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
