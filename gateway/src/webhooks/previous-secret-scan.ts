import { previousSecretInUse } from "@gateway-keys/contract";
import { previousSecretUseOf } from "../keys/secret-use";
import { NO_FIGURES } from "../store/secret-use-tables";
import type { PreviousSecretTerms, Store } from "../store/types";
import { announcePreviousSecretRetired, warnPreviousSecretInUse } from "./previous-secret-alerts";


/** What the scan needs besides the store. */
export interface PreviousSecretScanOptions {
  /** Drops a key from this process's key cache, inside the unit of work that changes it. */
  forget(keyId: string): void;
  /**
   * How long a use may be in some process's memory before it is in the database: every process's
   * flush interval (with room for the flush itself). A secret counts as idle only once it has gone
   * unused for its `retireWhenIdleSeconds` plus this, so a use no process flushed yet never retires it.
   */
  unflushedMs: number;
}

/**
 * One pass over the keys whose previous secret may still authenticate (extension `secret_use`), from
 * the figures every process flushed: a previous secret whose grace ended is recorded as retired
 * ("expired"); one unused for its `retireWhenIdleSeconds` is retired ("idle"); one still in use at
 * its `inUseWarningAt` sends `key.previous_secret_in_use` (once). A retirement is a conditional write
 * of the key's row — one process wins it, and sends the event — that leaves the version alone; every
 * process's key cache hears of it (PostgreSQL's key-change feed), and refuses the secret from then on.
 * Returns how many events this pass sent.
 */
export async function scanPreviousSecrets(store: Store, now: number, options: PreviousSecretScanOptions): Promise<number> {
  const candidates = await store.transaction((tx) => tx.secretUse.previousSecretCandidates());
  if (candidates.length === 0) return 0;
  const figures = await store.transaction((tx) => tx.secretUse.figuresOf(candidates.map((candidate) => candidate.id)));
  let sent = 0;
  for (const candidate of candidates) {
    const terms = JSON.parse(candidate.previousSecret) as PreviousSecretTerms;
    const previous = figures.get(candidate.id)?.get(candidate.previousSecretHash.toString("hex")) ?? NO_FIGURES;
    const subject = { ...candidate };
    const retire = (at: number, reason: "expired" | "idle") =>
      store.transaction(async (tx) => {
        options.forget(candidate.id);
        if (!(await tx.secretUse.retirePrevious(candidate.id, candidate.previousSecretHash, at, reason))) return false;
        await announcePreviousSecretRetired(tx, subject, { hint: terms.hint, figures: previous }, at, reason, now);
        return true;
      });
    if (now >= candidate.previousSecretExpiresAt) {
      if (await retire(candidate.previousSecretExpiresAt, "expired")) sent++;
      continue;
    }
    if (terms.retireWhenIdleSeconds !== null) {
      const idleSince = Math.max(previous.lastUsedAt ?? 0, candidate.rotatedAt);
      if (now - idleSince >= terms.retireWhenIdleSeconds * 1000 + options.unflushedMs) {
        if (await retire(now, "idle")) sent++;
        continue;
      }
    }
    const shown = previousSecretUseOf({ terms, expiresAt: candidate.previousSecretExpiresAt, retiredAt: null, retiredReason: null }, previous, now);
    if (now >= terms.inUseWarningAt && previousSecretInUse(shown, now)) {
      const warned = await store.transaction((tx) =>
        warnPreviousSecretInUse(tx, subject, { hint: terms.hint, expiresAt: candidate.previousSecretExpiresAt, figures: previous }, now),
      );
      if (warned) sent++;
    }
  }
  return sent;
}
