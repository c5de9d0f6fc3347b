import { configure } from "safe-stable-stringify";

// Object keys sorted by UTF-16 code unit (the library's default order, the order RFC 8785 uses too).
// A cycle throws as JSON.stringify does, rather than print "[Circular]" where two values could share it.
const stringify = configure({ deterministic: true, circularValue: TypeError, bigint: true });

/**
 * JSON with object keys sorted at every depth, so two values that differ only in key order give the
 * same text: what idempotency fingerprints and change detection compare. Properties whose value is
 * `undefined` are left out; arrays keep their order, with `undefined` written as `null`, as
 * JSON.stringify does. A value JSON cannot hold at all (`undefined` itself) reads as `null`.
 * @example canonicalJson({ b: 1, a: { d: undefined, c: [2, 1] } }) === '{"a":{"c":[2,1]},"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? "null";
}
