import { z } from "zod";

/** Bounds of the alert fields of a key (docs/api/audit-and-webhooks.md#event-catalog records them). */
export const ALERT_LIMITS = {
  budgetAlertThresholdsMax: 10,
  /** Warn at most a year ahead: a longer lead time is a calendar reminder, not an alert. */
  expiryWarningSecondsMin: 60,
  expiryWarningSecondsMax: 31_536_000,
  /** A secret may be declared due for rotation after a minute (tests) up to ten years. */
  rotateAfterSecondsMin: 60,
  rotateAfterSecondsMax: 315_360_000,
} as const;

const FRACTION_MESSAGE = "expected a fraction greater than 0 and at most 1, e.g. 0.8 for 80% of the spend limit";

/**
 * Fractions of the spend limit at which `key.budget_threshold` fires, at most once per spend window
 * each (a new window re-arms them): greater than 0, at most 1, ascending, no repeats, at most 10.
 * Empty (the default): no budget alerts.
 */
export const BudgetAlertThresholds = z
  .array(z.number({ error: FRACTION_MESSAGE }).gt(0, { error: FRACTION_MESSAGE }).lte(1, { error: FRACTION_MESSAGE }), {
    error: "expected an array of fractions such as [0.5, 0.8, 1]",
  })
  .max(ALERT_LIMITS.budgetAlertThresholdsMax, { error: `must hold at most ${ALERT_LIMITS.budgetAlertThresholdsMax} thresholds` })
  .superRefine((fractions, ctx) => {
    for (let i = 1; i < fractions.length; i++) {
      if (fractions[i]! <= fractions[i - 1]!) {
        ctx.addIssue({ code: "custom", path: [i], message: "must be in ascending order without repeats, e.g. [0.5, 0.8, 1]" });
        return;
      }
    }
  });
export type BudgetAlertThresholds = z.output<typeof BudgetAlertThresholds>;

const seconds = (min: number, max: number) => {
  const message = `expected whole seconds from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
};

/** How long before `expiresAt` the gateway sends `key.expiring`; null: no warning. */
export const ExpiryWarningSeconds = seconds(ALERT_LIMITS.expiryWarningSecondsMin, ALERT_LIMITS.expiryWarningSecondsMax);

/**
 * The age of a key's secret (since creation or its last rotation) at which the gateway sends
 * `key.rotation_due`; null: never. The providers set it from their `rotateAfter`.
 */
export const RotateAfterSeconds = seconds(ALERT_LIMITS.rotateAfterSecondsMin, ALERT_LIMITS.rotateAfterSecondsMax);
