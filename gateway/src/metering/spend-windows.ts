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
import type { MeteredKey, SpendSubject, StoredSpendWindow } from "./interfaces";

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

/**
 * Where a request of `key` reserves, at its time `at`: the key's windows, then its team's (a key
 * in a team reserves from both, all or none). Each window with the start of its calendar window
 * that holds `at`. Subjects without a window are left out. The answer is kept with the key object
 * for as long as every one of its windows stays the same (from the latest window start to the
 * earliest end), so requests of a key reuse it rather than compute calendars again: it is shared,
 * never to be changed.
 */
export function subjectsOf(key: MeteredKey, at: number): readonly WindowedSubject[] {
  const kept = keptSubjects.get(key);
  if (kept && at >= kept.from && at < kept.until) return kept.subjects;
  const subjects = windowedSubjectsOf(key, at);
  let from = -Infinity;
  let until = Infinity;
  for (const subject of subjects) {
    for (const window of subject.windows) {
      if (window.start > from) from = window.start;
      if (window.endsAt !== null && window.endsAt < until) until = window.endsAt;
    }
  }
  keptSubjects.set(key, { from, until, subjects });
  return subjects;
}

/** {@link subjectsOf}'s answers by key object, with the span of request times each holds for. */
const keptSubjects = new WeakMap<MeteredKey, { from: number; until: number; subjects: readonly WindowedSubject[] }>();

function windowedSubjectsOf(key: MeteredKey, at: number): WindowedSubject[] {
  const subjects: WindowedSubject[] = [];
  const add = (id: string, kind: "key" | "team", windows: readonly StoredSpendWindow[], createdAt: number) => {
    if (windows.length === 0) return;
    subjects.push({
      id,
      kind,
      windows: windows.map((window) => {
        const { start, endsAt } = spendWindowOf(window.resetPeriod, at, createdAt);
        return { start, limitMicros: window.limitMicros, resetPeriod: window.resetPeriod, endsAt };
      }),
    });
  };
  add(key.id, "key", keyWindowsOf({ spendLimitMicros: key.spendLimitMicros, resetPeriod: key.resetPeriod, spendWindows: key.spendWindows ?? null }), key.createdAt ?? 0);
  if (key.team) add(key.team.id, "team", key.team.spendWindows, key.team.createdAt);
  return subjects;
}

/** A subject with its windows at a request's time. */
export type WindowedSubject = Omit<SpendSubject, "windows"> & { readonly windows: readonly SubjectWindow[] };

/** One window of a subject at a request's time. */
export interface SubjectWindow {
  readonly start: number;
  readonly limitMicros: bigint;
  readonly resetPeriod: ResetPeriod;
  /** When it starts again; null for a lifetime window. */
  readonly endsAt: number | null;
}

/** Which window of which subject could not afford a request: what a refusal names. */
export interface SpendRefusal {
  readonly level: "key" | "team";
  readonly subjectId: string;
  readonly resetPeriod: ResetPeriod;
  readonly resetsAt: number | null;
}

/** The window at `index` of the subjects' windows in order, as a refusal names it. */
export function refusalAt(subjects: readonly WindowedSubject[], index: number): SpendRefusal | undefined {
  let i = index;
  for (const subject of subjects) {
    if (i < subject.windows.length) {
      const window = subject.windows[i]!;
      return { level: subject.kind, subjectId: subject.id, resetPeriod: window.resetPeriod, resetsAt: window.endsAt };
    }
    i -= subject.windows.length;
  }
  return undefined;
}

/** Whether a key reserves through holds (several windows, or a team with a spend policy) rather than its one window's account. */
export function reservesThroughHolds(key: MeteredKey): boolean {
  return (key.spendWindows?.length ?? 0) >= 2 || (key.team !== undefined && key.team !== null && key.team.spendWindows.length > 0);
}
