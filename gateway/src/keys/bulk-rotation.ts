import { BULK_ROTATION_LIMITS, labelsMatch, type BulkRotationOutcome, type ParsedLabelSelector } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import type { StoredApiKey, StoreTransaction } from "../store/types";

/** What selecting keys reads through: a unit of work. */
export type KeyReader = Pick<StoreTransaction, "listApiKeys">;

/** Keys read per page while selecting. */
const SELECT_PAGE = 200;

/**
 * The owner's keys that meet every selector and are not revoked, in key id order. More than
 * {@link BULK_ROTATION_LIMITS.maxKeys} is refused with 400 naming `label` and the count, before
 * anything changes: the caller narrows the selector and rotates in parts.
 */
export async function selectKeys(reader: KeyReader, ownerId: string, selectors: readonly ParsedLabelSelector[]): Promise<StoredApiKey[]> {
  const { maxKeys } = BULK_ROTATION_LIMITS;
  const selected: StoredApiKey[] = [];
  let count = 0;
  for (let afterSeq = 0; ; ) {
    const page = await reader.listApiKeys(ownerId, afterSeq, SELECT_PAGE, { selectors });
    for (const key of page) {
      if (key.state === "revoked") continue;
      count += 1;
      if (count <= maxKeys) selected.push(key);
    }
    if (page.length < SELECT_PAGE) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  if (count > maxKeys) {
    throw new GatewayError(
      "validation_failed",
      `Invalid fields: label: selects ${count} keys that are not revoked; a bulk rotation takes at most ${maxKeys}: add a selector to narrow it (e.g. env=prod) and rotate in parts.`,
      { param: "label" },
    );
  }
  return selected.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** How the operation treats the keys: a dry run or a rotation, and whether the request pinned versions. */
export interface BulkMode {
  dryRun: boolean;
  /** The versions the request pinned by key id, or null when it pinned none (only a dry run may). */
  pins: Readonly<Record<string, number>> | null;
}

/**
 * What the operation does with one key: `key` as read now (undefined: no key of the owner has
 * this id), `pinned` the version the request pinned for it (undefined: not pinned). The order of
 * the checks is the rotate endpoint's: revoked, then the version, then (the bulk operation's own)
 * the selectors.
 */
export function bulkOutcomeOf(key: StoredApiKey | undefined, pinned: number | undefined, selectors: readonly ParsedLabelSelector[], mode: BulkMode): BulkRotationOutcome {
  if (key === undefined) return "not_found";
  if (mode.pins === null) return "planned";
  if (pinned === undefined) return "not_in_plan";
  if (key.state === "revoked") return "revoked";
  if (key.version !== pinned) return "conflict";
  if (!labelsMatch(key.labels, selectors)) return "not_selected";
  return mode.dryRun ? "planned" : "rotated";
}
