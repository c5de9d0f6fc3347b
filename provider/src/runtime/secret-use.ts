import { previousSecretInUse, type PreviousSecretUse } from "@gateway-keys/contract";
import { callOptions, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { previousSecretInUseWarning } from "./messages";
import type { StoredKey } from "./shapes";

/** Whether a previous secret still authenticates at `now`: not retired, its grace not over. */
function stillAuthenticates(previous: PreviousSecretUse | null, now: number): previous is PreviousSecretUse {
  return previous !== null && previous.retiredAt === null && Date.parse(previous.expiresAt) > now;
}

/**
 * Before a planned rotation: warns when the key's previous secret is still in use (the contract's
 * {@link previousSecretInUse}), since the rotation ends it at once and cuts its clients off. The
 * state says whether a previous secret still authenticates at all (its grace end is fixed at the
 * rotation); only then is the live key read, for the use since the last refresh — one request,
 * and none for a key rotated without grace. A read that fails leaves the judgement to the state:
 * a warning is not worth failing the plan for.
 */
export async function warnIfPreviousSecretInUse(context: ProviderContext, stored: StoredKey, connection: Connection): Promise<void> {
  const now = context.now();
  let previous: PreviousSecretUse | null = stored.previousSecret ?? null;
  if (!stillAuthenticates(previous, now)) return;
  try {
    previous = (await context.connections.client(connection).apiKeys.get(stored.keyId, callOptions(connection))).previousSecret;
  } catch {
    // Judged by the state as last read.
  }
  if (previous !== null && previousSecretInUse(previous, now)) {
    // Awaited: a preview returns right after the diff, and could end before the warning arrives.
    await context.diagnostics.warn(previousSecretInUseWarning(stored.keyId, previous), stored.clientReference);
  }
}
