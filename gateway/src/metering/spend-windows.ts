import {
  formatUnits,
  orderSpendWindows,
  parseUnits,
  spendWindowOf,
  spendWindowsOf,
  type ResetPeriod,
  type SpendPolicy,
  type SpendPolicyRecord,
  type SpendWindowState,
} from "@gateway-keys/contract";
import type { StoredSpendWindow } from "./interfaces";

/**
 * Spend policies between the wire and the stores: the contract's text amounts parsed once into
 * micro-credits on the way in, formatted on the way out, windows kept in the contract's order.
 */

/** The windows of a written spend policy, in micro-credits (none for no policy). */
export function storedWindowsOf(policy: SpendPolicy | null | undefined): StoredSpendWindow[] {
  return spendWindowsOf(policy).map((window) => ({ limitMicros: parseUnits(window.limitUnits), resetPeriod: window.resetPeriod }));
}

/** A spend policy as the wire shows it: one window in the single form, several in the windows form, none as null. */
export function wireSpendPolicy(windows: readonly StoredSpendWindow[]): SpendPolicyRecord | null {
  const listed = orderSpendWindows(windows).map((window) => ({ limitUnits: formatUnits(window.limitMicros), resetPeriod: window.resetPeriod }));
  if (listed.length === 0) return null;
  if (listed.length === 1) return { ...listed[0]!, currency: "unit" };
  return { currency: "unit", windows: listed };
}

/** A key's windows: its list when it holds several, else the one in its limit and period (none without a limit). */
export function keyWindowsOf(key: { spendLimitMicros: bigint | null; resetPeriod: ResetPeriod; spendWindows: readonly StoredSpendWindow[] | null }): readonly StoredSpendWindow[] {
  if (key.spendWindows && key.spendWindows.length > 0) return key.spendWindows;
  return key.spendLimitMicros === null ? [] : [{ limitMicros: key.spendLimitMicros, resetPeriod: key.resetPeriod }];
}

/**
 * The columns a key's spend policy is stored in: the first window in `spendLimitMicros` and
 * `resetPeriod` (what readers of one window see), the whole list in `spendWindows` when it holds two or more.
 */
export function keySpendColumns(windows: readonly StoredSpendWindow[]): { spendLimitMicros: bigint | null; resetPeriod: ResetPeriod; spendWindows: StoredSpendWindow[] | null } {
  const [first] = windows;
  return {
    spendLimitMicros: first?.limitMicros ?? null,
    resetPeriod: first?.resetPeriod ?? "never",
    spendWindows: windows.length >= 2 ? [...windows] : null,
  };
}

/**
 * Each window now, as records show it: its limit, what was spent in it (`spentIn`, from the
 * window's start: the epoch for a lifetime window), when it began (a lifetime window at
 * `createdAt`) and when it starts again.
 */
export async function windowStatesOf(
  windows: readonly StoredSpendWindow[],
  now: number,
  createdAt: number,
  spentIn: (windowStart: number, period: ResetPeriod) => Promise<bigint>,
): Promise<SpendWindowState[]> {
  return Promise.all(
    windows.map(async (window) => {
      const { start, startedAt, endsAt } = spendWindowOf(window.resetPeriod, now, createdAt);
      return {
        limitUnits: formatUnits(window.limitMicros),
        resetPeriod: window.resetPeriod,
        spentUnits: formatUnits(await spentIn(start, window.resetPeriod)),
        startedAt: new Date(startedAt).toISOString(),
        resetsAt: endsAt === null ? null : new Date(endsAt).toISOString(),
      };
    }),
  );
}
