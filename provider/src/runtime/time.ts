import { ALERT_LIMITS, KEY_EXTENSION_LIMITS, SECRET_USE_LIMITS } from "@gateway-keys/contract";
import { z } from "zod";

/**
 * The provider's clock: milliseconds since the epoch. A parameter of the provider (default
 * `Date.now`), so tests pass their own instead of sleeping; nothing reads a clock from the environment.
 */
export type Clock = () => number;

const MINUTE = 60_000;
const UNIT_MS = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE } as const;

/** A duration as a program writes it: a whole number and a unit, `"30d"`, `"12h"`, `"90m"`, `"45s"`. */
function duration(units: readonly (keyof typeof UNIT_MS)[], minMs: number, maxMs: number, expected: string) {
  const pattern = new RegExp(`^(\\d{1,9})([${units.join("")}])$`);
  return z
    .string({ error: expected })
    .regex(pattern, { error: expected, abort: true })
    .refine((text) => {
      const ms = durationMs(text);
      return ms >= minMs && ms <= maxMs;
    }, { error: expected });
}

/** The length of a duration written as {@link duration} accepts. */
export function durationMs(text: string): number {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** `rotateAfter`: the secret is rotated once it is older than this. From one hour to ten years. */
export const RotateAfter = duration(
  ["m", "h", "d"],
  60 * MINUTE,
  3650 * UNIT_MS.d,
  'expected a duration such as "30d", "12h" or "90m" (a whole number of days, hours or minutes), from 1h to 3650d',
);

/** `rotationGracePeriod`: how long the replaced secret keeps working after a rotation. Up to the gateway's 7 days. */
export const RotationGracePeriod = duration(
  ["s", "m", "h", "d"],
  0,
  KEY_EXTENSION_LIMITS.gracePeriodSecondsMax * 1000,
  'expected a duration such as "1h", "30m" or "45s" (a whole number of days, hours, minutes or seconds), at most 7d',
);

/**
 * `retireWhenIdle`: the replaced secret stops as soon as it has gone unused this long (sent as rotate's
 * `retireWhenIdleSeconds`). From the contract's few seconds to its 7 days.
 */
export const RetireWhenIdle = duration(
  ["s", "m", "h", "d"],
  SECRET_USE_LIMITS.retireWhenIdleSecondsMin * 1000,
  KEY_EXTENSION_LIMITS.gracePeriodSecondsMax * 1000,
  `expected a duration such as "15m", "1h" or "30s" (a whole number of days, hours, minutes or seconds), from ${SECRET_USE_LIMITS.retireWhenIdleSecondsMin}s to 7d`,
);

/**
 * `inUseWarning`: how long before the replaced secret's grace ends the gateway sends
 * `key.previous_secret_in_use` if it is still in use (sent as rotate's `inUseWarningSeconds`).
 */
export const InUseWarning = duration(
  ["s", "m", "h", "d"],
  1000,
  KEY_EXTENSION_LIMITS.gracePeriodSecondsMax * 1000,
  'expected a duration such as "15m", "1h" or "30s" (a whole number of days, hours, minutes or seconds), from 1s to 7d',
);

/**
 * `expiryWarning`: how long before `expiresAt` the gateway sends `key.expiring`. From a minute to
 * the contract's year.
 */
export const ExpiryWarning = duration(
  ["s", "m", "h", "d"],
  ALERT_LIMITS.expiryWarningSecondsMin * 1000,
  ALERT_LIMITS.expiryWarningSecondsMax * 1000,
  'expected a duration such as "7d", "12h" or "90m" (a whole number of days, hours, minutes or seconds), from 1m to 365d',
);

/** Whole seconds of a duration written as {@link duration} accepts: what the contract's `...Seconds` fields take. */
export const durationSeconds = (text: string): number => durationMs(text) / 1000;

/** A number of seconds as the shortest duration text in the largest unit that divides it: 604800 is `"7d"`. */
export function durationText(seconds: number): string {
  for (const unit of ["d", "h", "m"] as const) {
    const size = UNIT_MS[unit] / 1000;
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
