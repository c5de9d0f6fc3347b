import { windowStartOf, type ResetPeriod } from "@gateway-keys/contract";
import type { Store } from "../store/types";
import { sendAlertOnce } from "./alerts";
import { sendCrossedThresholds } from "./budget-alerts";
import { keyWindowsOf } from "../metering/spend-windows";

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * One pass of the periodic scan for time-based alerts: `key.expiring` within a key's
 * `expiryWarningSeconds` of its expiry, `key.expired` once it passed, `key.rotation_due` once its
 * secret is `rotateAfterSeconds` old. Each is sent once per expiry instant or secret (alert marks),
 * whichever process scans first. Also the backstop of budget thresholds: each key's current window
 * is read and any threshold it reached that no charge's check sent is sent now. Returns how many
 * alerts this pass sent.
 */
export async function scanTimedAlerts(store: Store, now: number): Promise<number> {
  const keys = await store.transaction((tx) => tx.events.alertCandidates());
  let sent = 0;
  for (const key of keys) {
    const send = (kind: "expiring" | "expired" | "rotation_due", at: number, data: Record<string, unknown>) =>
      store.transaction((tx) => sendAlertOnce(tx, key, { kind, at, thresholdPpm: 0 }, data, now)).then((fresh) => void (fresh && sent++));
    const warning = key.alerts.expiryWarningSeconds;
    if (key.expiresAt !== null) {
      if (now >= key.expiresAt) await send("expired", key.expiresAt, { expiresAt: iso(key.expiresAt) });
      else if (warning != null && now >= key.expiresAt - warning * 1000) {
        await send("expiring", key.expiresAt, { expiresAt: iso(key.expiresAt), expiryWarningSeconds: warning });
      }
    }
    const thresholds = key.alerts.budgetAlertThresholds ?? [];
    if (thresholds.length > 0 && key.spendLimitMicros !== null) {
      const windows = keyWindowsOf({ spendLimitMicros: key.spendLimitMicros, resetPeriod: key.resetPeriod as ResetPeriod, spendWindows: key.spendWindows });
      for (const window of windows) {
        const metered = {
          id: key.id, ownerId: key.ownerId, name: key.name, labels: key.labels, createdAt: key.createdAt,
          resetPeriod: window.resetPeriod, spendLimitMicros: window.limitMicros, spendWindows: key.spendWindows,
        };
        await sendCrossedThresholds(store, metered, window.limitMicros, windowStartOf(window.resetPeriod, now), thresholds, () => now, () => sent++);
      }
    }
    const rotateAfter = key.alerts.rotateAfterSeconds;
    if (rotateAfter != null) {
      const secretCreatedAt = key.rotatedAt ?? key.createdAt;
      const dueAt = secretCreatedAt + rotateAfter * 1000;
      if (now >= dueAt) await send("rotation_due", secretCreatedAt, { secretCreatedAt: iso(secretCreatedAt), rotateAfterSeconds: rotateAfter, dueAt: iso(dueAt) });
    }
  }
  return sent;
}
