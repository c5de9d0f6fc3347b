/**
 * Credits are carried on the wire as decimal strings and counted internally as integer
 * micro-units (1 unit = 1,000,000 micro-units), so no arithmetic on credits ever touches a float.
 */

/** Fraction digits a credit amount may carry. */
export const UNIT_DECIMALS = 6;
/** Micro-units in one credit unit. */
export const MICROS_PER_UNIT = 10n ** BigInt(UNIT_DECIMALS);

/** A non-negative decimal with at most 12 integer digits and 6 fraction digits, no sign or exponent. */
export const DECIMAL_UNITS_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/;

/**
 * Parses a decimal credit amount into micro-units.
 * @example parseUnits("1.5") === 1_500_000n
 * @throws RangeError when the text is not a decimal the contract allows.
 */
export function parseUnits(text: string): bigint {
  if (!DECIMAL_UNITS_PATTERN.test(text)) {
    throw new RangeError(`not a decimal amount of credits: ${JSON.stringify(text.slice(0, 40))}`);
  }
  const [whole = "0", fraction = ""] = text.split(".");
  return BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction.padEnd(UNIT_DECIMALS, "0"));
}

/**
 * Formats micro-units as the shortest exact decimal string.
 * @example formatUnits(1_500_000n) === "1.5"
 */
export function formatUnits(micros: bigint): string {
  const sign = micros < 0n ? "-" : "";
  const abs = micros < 0n ? -micros : micros;
  const whole = abs / MICROS_PER_UNIT;
  const fraction = (abs % MICROS_PER_UNIT).toString().padStart(UNIT_DECIMALS, "0").replace(/0+$/, "");
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}
