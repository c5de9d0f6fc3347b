import { z } from "zod";

const LABEL_SELECTOR_MESSAGE = 'expected a label selector "name=value" (or "name" for any value), e.g. team=search';

/** The most label selectors one list or bulk rotation takes (they must all match). */
export const LABEL_SELECTORS_MAX = 32;

/**
 * One label selector: `name=value` matches keys whose label `name` is `value`; `name` alone, keys
 * that have it. The key list's `label` query and the bulk rotation's `label` take it alike.
 */
export const LabelSelectorText = z.string({ error: LABEL_SELECTOR_MESSAGE }).min(1, { error: LABEL_SELECTOR_MESSAGE }).max(400, { error: LABEL_SELECTOR_MESSAGE });

/** A label selector read into its parts: `value` null matches any value. */
export interface ParsedLabelSelector {
  name: string;
  value: string | null;
}

/** Reads `name=value` (or `name`) into its parts; the first `=` splits them, so a value may hold `=`. */
export function parseLabelSelector(selector: string): ParsedLabelSelector {
  const split = selector.indexOf("=");
  return split < 0 ? { name: selector, value: null } : { name: selector.slice(0, split), value: selector.slice(split + 1) };
}

/** Whether `labels` meet every selector (no selector: any labels do). */
export function labelsMatch(labels: Readonly<Record<string, string>>, selectors: readonly ParsedLabelSelector[]): boolean {
  return selectors.every(({ name, value }) => Object.hasOwn(labels, name) && (value === null || labels[name] === value));
}
