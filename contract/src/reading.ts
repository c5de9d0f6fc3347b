import { z } from "zod";
import { DECIMAL_UNITS_PATTERN, formatUnits, parseUnits } from "./units";

/**
 * How the contract reads what a gateway returns: loosely, so a client keeps working when a newer
 * gateway sends a value it does not know yet, yet typed wherever the value is one it knows.
 */

/** A value of an enum that this version of the contract does not know (sent by a newer gateway). */
export type Unrecognized = string & z.core.$brand<"Unrecognized">;

/**
 * Reads an enum loosely: a known value keeps its literal type, any other string still parses, typed
 * as {@link Unrecognized}. Code that compares against the known values needs no cast, and a plain
 * string cannot pass for a known value by accident.
 * @example looseEnum(["all", "allowList"]).parse("future") // typed "all" | "allowList" | Unrecognized
 */
export function looseEnum<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z.union([z.enum(values), z.string().brand<"Unrecognized">()]);
}

/**
 * A credit amount as a gateway returns it: an amount the contract allows reads in its canonical
 * spelling ("100.50" reads "100.5", as `LimitUnits` writes it), anything else as sent.
 */
export const ReadUnits = z
  .string()
  .transform((text) => (DECIMAL_UNITS_PATTERN.test(text) ? formatUnits(parseUnits(text)) : text));
