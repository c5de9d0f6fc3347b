import type { MeteredKey } from "../metering/interfaces";
import type { StoredApiKey, StoredTeam } from "../store/types";

/**
 * A key in a team as metering takes it, made once per version of the key and of its team rather
 * than per request: the key and team caches hand out one object per version, so while neither
 * changes every request of the key gets the same object, and what metering derives from it (its
 * windows at a request's time, spend-windows.ts) is kept with it too. A changed key or team is a
 * new object, which makes a new one; the old ones go with the objects they were made of.
 */
const meteredKeys = new WeakMap<StoredApiKey, { team: StoredTeam; metered: MeteredKey }>();

/** `key` with `team`'s windows: the same object for the same key and team objects. */
export function meteredKeyOf(key: StoredApiKey, team: StoredTeam): MeteredKey {
  const made = meteredKeys.get(key);
  if (made?.team === team) return made.metered;
  const metered: MeteredKey = { ...key, team };
  meteredKeys.set(key, { team, metered });
  return metered;
}
